import type { SQL } from 'drizzle-orm';
import { audit, auditedChange } from '../../core/audit.js';
import type { Ctx } from '../../core/context.js';
import { CURRENCIES } from '../../core/currencies.js';
import { AppError, invalid } from '../../core/errors.js';
import type { ListParams } from '../../core/list-params.js';
import { withTransaction } from '../../core/transaction.js';
import { newId } from '../../db/ids.js';
import { assertDistinct } from '../bulk/service.js';
import { exactSum, type Amount } from '../analytics/service.js';
import { partnerStanding, type EarningsReader, type PartnerEarnings } from '../partners/service.js';
import { findProgram, type ProgramRow } from '../program/service.js';
import type { EventType } from '../webhooks/service.js';
import {
  clickPartnerFactsSql as factsSql,
  earnForConversion as earn,
  planConversionCommission as planConversion,
  preReadFactsSql as preReadFacts,
  type Earned,
  type StoredConversion,
} from './earn.js';
import { planHoldsSql, plannedInsertSql, type EarnFacts, type PlannedCommission } from './store-earn.js';
import { commissionsCreated, commissionsUpdated } from './events.js';
import { holdForDispute, releaseDisputeHold } from './disputes.js';
import { followRefund } from './refunds.js';
import {
  claimRows,
  markPaidRows,
  payableByCurrencyRows,
  payableTotalRows,
  payoutCommissionIds,
  releaseRows,
  reverseUnpaidRows,
  type PartnerClaim,
  type PartnerTotal,
} from './payout-claims.js';
import { earningsBucketRows, earningsRows, type CreatedRange } from './store-earnings.js';
import { applyStatusChanges, insertCommissions, listCommissionRows, lockCommissions, type CommissionFilter, type CommissionRow } from './store.js';

export type { StoredConversion } from './earn.js';
export type { EarnFacts, PlannedCommission } from './store-earn.js';

/** A lead's or sale's commission facts as WITH queries and a row of its recording statement (earn.ts clickPartnerFactsSql). */
export function clickPartnerFactsSql({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { program: ProgramRow; kind: 'lead' | 'sale'; clickId: string; partner: SQL; customer: SQL; referredAt?: SQL };
}): { ctes: SQL; row: SQL } {
  return factsSql(ctx.workspace.id, input);
}

/** A lead's or sale's commission facts read before its statement, beside the program (earn.ts preReadFactsSql). */
export function preReadFactsSql({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { kind: 'lead' | 'sale'; clickId: string; partner: SQL; customer: SQL; referredAt?: SQL };
}): { ctes: SQL; row: SQL } {
  return preReadFacts(ctx.workspace.id, input);
}

/** What a lead or sale of a click earns, decided before its statement writes it (earn.ts planConversionCommission). */
export function planConversionCommission({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { program: ProgramRow; conversion: StoredConversion; facts: EarnFacts | null };
}): PlannedCommission | undefined {
  return planConversion(ctx.workspace.id, input.program, input.conversion, input.facts);
}

/**
 * How the event's statement writes a planned commission: the partner it wins the customer for,
 * the commission's WITH query (none without one), and the column that raises LT409 instead when
 * the event is not what it was planned for (core/transaction.ts isPlanStale). `invoiceRepeat`: a
 * sale statement's expression of it.
 */
export function plannedCommissionWrite(planned: PlannedCommission, newCustomerId: string, invoiceRepeat?: SQL): { winFor?: string; insert?: SQL; holds: SQL } {
  return {
    winFor: planned.win && planned.partnerId ? planned.partnerId : undefined,
    insert: planned.commission ? plannedInsertSql(planned.commission) : undefined,
    holds: planHoldsSql(planned, newCustomerId, invoiceRepeat),
  };
}

export type { CommissionRow } from './store.js';

/**
 * The commission a lead or sale just stored earns, written in its transaction (`ctx.db`);
 * undefined: none. `wanted`: the webhook event types the caller already read for this write
 * (spares commission.created's own read).
 */
export function earnForConversion({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { program: ProgramRow; conversion: StoredConversion; wanted?: ReadonlySet<EventType>; alongside?: SQL };
}): Promise<Earned> {
  return earn(ctx, input.program, input.conversion, input.wanted, input.alongside);
}

/** GET /api/commissions: newest first by default; `payable` and `pending` split by payableAt. */
export function listCommissions({ ctx, input }: { ctx: Ctx; input: CommissionFilter & ListParams }): Promise<CommissionRow[]> {
  return listCommissionRows(ctx.db, ctx.workspace.id, input);
}

async function requireProgram(ctx: Ctx): Promise<ProgramRow> {
  const program = await findProgram({ ctx });
  if (!program) throw new AppError('program_required');
  return program;
}

/**
 * POST /api/commissions: custom commissions, payable at once. A partner the acting person signs
 * in as is 403 self_dealing: nobody pays themselves.
 */
export async function createCustomCommissions({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { actingUserId: string | null; items: { partnerId: string; earnings: number; currency: string; description: string }[] };
}): Promise<CommissionRow[]> {
  await requireProgram(ctx);
  input.items.forEach((item, i) => {
    if (!CURRENCIES.has(item.currency)) throw invalid(`[${i}].currency`, 'currency_code', { value: item.currency });
  });
  const ids = [...new Set(input.items.map((i) => i.partnerId.toLowerCase()))];
  const standing = await partnerStanding({ ctx, input: ids });
  input.items.forEach((item, i) => {
    const partner = standing.get(item.partnerId.toLowerCase());
    if (!partner) throw invalid(`[${i}].partnerId`, 'not_found');
    if (input.actingUserId && partner.userId === input.actingUserId) throw new AppError('self_dealing');
  });
  return auditedChange(
    ctx,
    async (tx) => {
      const created = await insertCommissions(
        tx,
        input.items.map((item) => ({
          id: newId(),
          workspaceId: ctx.workspace.id,
          partnerId: item.partnerId.toLowerCase(),
          type: 'custom' as const,
          linkId: null,
          customerId: null,
          eventId: null,
          saleAmount: null,
          currency: item.currency,
          earnings: item.earnings,
          status: 'pending' as const,
          holdReasons: [],
          reversedReason: null,
          description: item.description,
          at: null,
          holdingDays: 0,
        })),
      );
      await commissionsCreated({ ...ctx, db: tx }, created);
      return created;
    },
    (rows) => ({ ids: rows.map((r) => r.id), counts: { created: rows.length } }),
  );
}

/** The moves PATCH /api/commissions allows, from the status as read (payable included). */
function checkedMove(row: CommissionRow, to: 'pending' | 'reversed', reason: string | undefined, index: number): string | null {
  const allowed =
    (row.status === 'held' && (to === 'pending' || to === 'reversed')) || ((row.status === 'pending' || row.status === 'payable') && to === 'reversed');
  if (!allowed) throw invalid(`[${index}].status`, 'status_move', { from: row.status, to });
  if (to === 'pending') return null;
  return reason ?? (row.status === 'held' ? 'fraud' : 'manual');
}

/**
 * PATCH /api/commissions: release a held commission (payableAt unchanged), reverse a held one
 * for fraud, or reverse a pending or payable one (manual unless a reason is given). A commission
 * inside a pending payout keeps its place there; its reversal is kept as the adjustment.
 * Any move not allowed fails the whole request, naming its index.
 */
export async function changeCommissionStatuses({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; status: 'pending' | 'reversed'; reason?: 'fraud' | 'manual' }[];
}): Promise<CommissionRow[]> {
  const ids = input.map((c) => c.id.toLowerCase());
  assertDistinct(ids, (i) => `[${i}].id`);
  return withTransaction(ctx.db, async (tx) => {
    const found = new Map((await lockCommissions(tx, ctx.workspace.id, ids)).map((r) => [r.id, r]));
    const changes = input.map((c, i) => {
      const row = found.get(ids[i]!);
      if (!row) throw invalid(`[${i}].id`, 'not_found');
      const reversedReason = checkedMove(row, c.status, c.reason, i);
      return { id: row.id, status: c.status, reversedReason, inPayout: row.payoutId !== null };
    });
    const changed = await applyStatusChanges(tx, ctx.workspace.id, changes);
    await commissionsUpdated({ ...ctx, db: tx }, changed);
    await audit(ctx, tx, { ids: changed.map((c) => c.id), counts: { updated: changed.length } });
    return changed;
  });
}

/** The sale's commission after a refund (its refundedAmount now as given), in the refund's transaction (`ctx.db`). */
export function followSaleRefund({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; amount: number; refundedAmount: number };
}): Promise<CommissionRow | undefined> {
  return followRefund(ctx, input);
}

/**
 * A dispute opened on the sale's payment: its commission `held` (reason `dispute`), in the
 * event's transaction (`ctx.db`); a paid one stays paid. Undefined when nothing changed (no
 * commission, paid, reversed, in a pending payout, or already held for it).
 */
export function holdSaleCommissionForDispute({ ctx, input }: { ctx: Ctx; input: { saleId: string } }): Promise<CommissionRow | undefined> {
  return holdForDispute(ctx, input.saleId);
}

/** A dispute won: the `dispute` hold of the sale's commission released (pending again unless other reasons hold it), in the event's transaction. */
export function releaseSaleCommissionDisputeHold({ ctx, input }: { ctx: Ctx; input: { saleId: string } }): Promise<CommissionRow | undefined> {
  return releaseDisputeHold(ctx, input.saleId);
}

export type { PartnerClaim, PartnerTotal } from './payout-claims.js';

/** Each partner's payable total in a currency (of `partnerIds` only, when given), decimal strings. */
export function payableTotals({ ctx, input }: { ctx: Ctx; input: { currency: string; partnerIds?: string[] } }): Promise<PartnerTotal[]> {
  return payableTotalRows(ctx.db, ctx.workspace.id, input.currency, input.partnerIds);
}

/** What is payable now, per currency (never added across currencies). */
export function payableByCurrency({ ctx }: { ctx: Ctx }): Promise<{ currency: string; total: string; partners: number }[]> {
  return payableByCurrencyRows(ctx.db, ctx.workspace.id);
}

/** Claims payable commissions for a payout in its transaction (`ctx.db`); what each partner got, with the commissions' ids. */
export function claimForPayout({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { payoutId: string; currency: string; partnerIds: string[]; minimum: number };
}): Promise<PartnerClaim[]> {
  return claimRows(ctx.db, { workspaceId: ctx.workspace.id, ...input });
}

/** The commission ids of each of these partners in a payout. */
export function commissionIdsOfPayout({ ctx, input }: { ctx: Ctx; input: { payoutId: string; partnerIds: string[] } }): Promise<Map<string, string[]>> {
  return payoutCommissionIds(ctx.db, ctx.workspace.id, input.payoutId, input.partnerIds);
}

/** A payout completed: its commissions paid but the failed partners', whose go back to payable; in its transaction. */
export async function settlePayout({ ctx, input }: { ctx: Ctx; input: { payoutId: string; failed: string[] } }): Promise<void> {
  await markPaidRows(ctx.db, { workspaceId: ctx.workspace.id, payoutId: input.payoutId, failed: input.failed, newIds: newId });
  if (input.failed.length) await releaseRows(ctx.db, { workspaceId: ctx.workspace.id, payoutId: input.payoutId, partnerIds: input.failed });
}

/** A payout cancelled: its commissions payable again, the changes made meanwhile applied; in its transaction. */
export async function releasePayout({ ctx, input }: { ctx: Ctx; input: { payoutId: string } }): Promise<void> {
  await releaseRows(ctx.db, { workspaceId: ctx.workspace.id, payoutId: input.payoutId });
}

/** A partner banned or rejected: their unpaid commissions reversed, in the change's transaction (partners call it through onPartnersBannedOrRejected). */
export async function reverseUnpaidCommissions(ctx: Ctx, changed: { partnerId: string; status: 'banned' | 'rejected' }[]): Promise<void> {
  const ids = await reverseUnpaidRows(ctx.db, ctx.workspace.id, changed);
  if (ids.length) await commissionsUpdated(ctx, await listCommissionRows(ctx.db, ctx.workspace.id, { ids, take: ids.length, skip: 0, sort: 'asc' }));
}

export { emitProgramEvents } from './events.js';

/**
 * GET /api/partners?withStats: these partners' earnings from the commissions created in the
 * span, per currency, pending, held, payable (derived as payouts claim) and paid, exact; one
 * statement. A partner without any is absent. Partners read it through providePartnerEarnings.
 */
export const partnerEarnings: EarningsReader = async ({ ctx, input }) => {
  const out = new Map<string, Record<string, PartnerEarnings>>();
  for (const r of await earningsRows(ctx.db, ctx.workspace.id, input.partnerIds, input.span)) {
    let byCurrency = out.get(r.partnerId);
    if (!byCurrency) out.set(r.partnerId, (byCurrency = {}));
    (byCurrency[r.currency] ??= { pending: 0, held: 0, payable: 0, paid: 0 })[r.state] = exactSum(r.total);
  }
  return out;
};

/** A partner's own commissions (the portal): as GET /api/commissions with the partner fixed. */
export function partnerCommissions({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { partnerId: string } & Omit<CommissionFilter, 'partnerId' | 'ids' | 'id'> & ListParams;
}): Promise<CommissionRow[]> {
  return listCommissionRows(ctx.db, ctx.workspace.id, input);
}

/** A partner's earnings per UTC day or month and currency (the portal's chart), exact; reversed ones left out. */
export async function partnerEarningsSeries({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { partnerId: string; linkId?: string; interval: 'day' | 'month'; span: CreatedRange };
}): Promise<Map<string, Record<string, Amount>>> {
  const out = new Map<string, Record<string, Amount>>();
  const q = { partnerId: input.partnerId, linkId: input.linkId, interval: input.interval, range: input.span };
  for (const r of await earningsBucketRows(ctx.db, ctx.workspace.id, q)) {
    let byCurrency = out.get(r.key);
    if (!byCurrency) out.set(r.key, (byCurrency = {}));
    byCurrency[r.currency] = exactSum(r.total);
  }
  return out;
}
