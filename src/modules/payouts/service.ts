/**
 * Payouts (operations.md §18 "Payouts"): Linktrail moves no money. A payout gathers what is
 * payable in one currency, frozen when made; its file is the batch the owner uploads to their
 * provider; complete marks it paid (failed partners back to payable), cancel hands it back.
 */
import type { Readable } from 'node:stream';
import { audit } from '../../core/audit.js';
import type { Ctx } from '../../core/context.js';
import { CURRENCIES } from '../../core/currencies.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import type { Sealer } from '../../core/sealed.js';
import { uniqueConstraintOf, withTransaction } from '../../core/transaction.js';
import { newId } from '../../db/ids.js';
import { claimForPayout, commissionIdsOfPayout, emitProgramEvents, payableTotals, releasePayout, settlePayout } from '../commissions/service.js';
import { payoutDestinations, payoutProfiles, type PayoutProfile } from '../partners/service.js';
import { findProgram } from '../program/service.js';
import { PAYOUT_FILE_FORMATS, payoutFileStream, type PayoutFileFormat, type PayoutFileItem } from './files.js';
import {
  countItems,
  endPayout,
  inPendingPayout,
  insertItems,
  insertPayout,
  itemRows,
  listPayoutRows,
  partnerPayoutRows,
  payoutRow,
  type PartnerPayoutRow,
  type PayoutItemRow,
  type PayoutRow,
} from './store.js';

/** Details replaced this recently leave a partner out of a payout unless named (a taken-over account redirecting money). */
const CHANGED_RECENTLY_MS = 7 * 86_400_000;
const FILE_PAGE = 500;

export interface PayoutRecord extends Omit<PayoutRow, 'total' | 'reference' | 'failedPartnerIds' | 'completedAt'> {
  total: bigint;
  reference: string | null;
  failedPartnerIds: string[];
  completedAt: string | null;
  items: { partnerId: string; amount: bigint; commissions: string[]; method: string | null; destination: string | null; detailsChangedAt: string | null }[];
}

type Skip = { partnerId: string; reason: 'no_payout_details' | 'details_changed_recently' | 'not_approved' | 'below_minimum' | 'method' };

function skipReason(p: PayoutProfile | undefined, method: string | undefined, named: boolean, now: Date): Skip['reason'] | undefined {
  if (!p || p.status !== 'approved') return 'not_approved';
  if (!p.method) return 'no_payout_details';
  if (method && p.method !== method) return 'method';
  if (!named && p.changedAt && now.getTime() - Date.parse(p.changedAt) < CHANGED_RECENTLY_MS) return 'details_changed_recently';
  return undefined;
}

/** The payout as the API shows it; `claimed`: each partner's commission ids when the caller has them (the payout just made). */
async function record(ctx: Ctx, row: PayoutRow, claimed?: Map<string, string[]>): Promise<PayoutRecord> {
  const items: PayoutItemRow[] = [];
  for (let page = await itemRows(ctx.db, row.id, -1, 5000); page.length; page = await itemRows(ctx.db, row.id, page.at(-1)!.position, 5000))
    items.push(...page);
  const commissions = claimed ?? (await commissionIdsOfPayout({ ctx, input: { payoutId: row.id, partnerIds: items.map((i) => i.partnerId) } }));
  return {
    ...row,
    total: BigInt(row.total),
    items: items.map(({ position: _p, ...i }) => ({ ...i, amount: BigInt(i.amount), commissions: commissions.get(i.partnerId) ?? [] })),
  };
}

/**
 * POST /api/payouts: every payable commission in `currency` of approved partners with payout
 * details whose total reaches the program's minimum for it (none set: any positive total).
 * `partnerIds` limits it to those partners and lets in details changed in the last 7 days.
 */
export async function createPayout({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { currency: string; method?: 'paypal' | 'wise' | 'bank'; partnerIds?: string[] };
}): Promise<PayoutRecord> {
  if (!CURRENCIES.has(input.currency)) throw invalid('currency', 'currency_code', { value: input.currency });
  const program = await findProgram({ ctx });
  if (!program) throw new AppError('program_required');
  const minimum = program.minPayout[input.currency] ?? 1;
  const named = input.partnerIds ? new Set(input.partnerIds.map((id) => id.toLowerCase())) : undefined;
  const id = newId();
  try {
    let ids = new Map<string, string[]>();
    const row = await withTransaction(ctx.db, async (tx) => {
      const txCtx = { ...ctx, db: tx };
      await insertPayout(tx, { id, workspaceId: ctx.workspace.id, currency: input.currency, method: input.method ?? null, skipped: [] });
      const totals = await payableTotals({ ctx: txCtx, input: { currency: input.currency, partnerIds: named && [...named] } });
      const profiles = await payoutProfiles({ ctx: txCtx, input: totals.map((t) => t.partnerId) });
      const skipped: Skip[] = [];
      const eligible: string[] = [];
      for (const t of totals) {
        const reason =
          BigInt(t.total) < BigInt(Math.max(minimum, 1))
            ? 'below_minimum'
            : skipReason(profiles.get(t.partnerId), input.method, named?.has(t.partnerId) ?? false, ctx.now);
        if (reason) skipped.push({ partnerId: t.partnerId, reason });
        else eligible.push(t.partnerId);
      }
      const claimed = await claimForPayout({ ctx: txCtx, input: { payoutId: id, currency: input.currency, partnerIds: eligible, minimum } });
      ids = new Map(claimed.map((c) => [c.partnerId, c.ids]));
      const items = claimed.map((c) => {
        const p = profiles.get(c.partnerId)!;
        return { partnerId: c.partnerId, amount: c.total, count: c.count, method: p.method, destination: p.destination, detailsChangedAt: p.changedAt };
      });
      await insertItems(tx, id, items, skipped);
      await audit(ctx, tx, { ids: [id], counts: { partners: items.length } });
      return (await payoutRow(tx, ctx.workspace.id, id))!;
    });
    return record(ctx, row, ids);
  } catch (err) {
    if (uniqueConstraintOf(err) === 'payouts_one_pending') throw new AppError('payout_pending', { currency: input.currency });
    throw err;
  }
}

export function listPayouts({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { take: number; skip: number; sort: 'asc' | 'desc'; status?: string; currency?: string };
}): Promise<PayoutRow[]> {
  return listPayoutRows(ctx.db, ctx.workspace.id, input);
}

export async function getPayout({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<PayoutRecord> {
  const row = await payoutRow(ctx.db, ctx.workspace.id, input.id);
  if (!row) throw notFound('payout', input.id);
  return record(ctx, row);
}

/** Ends a pending payout; another status is 409 payout_not_pending, another workspace's 404. */
async function end(ctx: Ctx, id: string, change: (tx: Ctx) => Promise<PayoutRow | undefined>): Promise<PayoutRecord> {
  return withTransaction(ctx.db, async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const ended = await change(txCtx);
    if (!ended) {
      const current = await payoutRow(tx, ctx.workspace.id, id);
      if (!current) throw notFound('payout', id);
      throw new AppError('payout_not_pending', { status: current.status });
    }
    await audit(ctx, tx, { ids: [id] });
    const done = await record(txCtx, ended);
    if (done.status === 'completed') await emitProgramEvents(txCtx, 'payout.completed', [done]);
    return done;
  });
}

/** POST …/complete: the commissions paid as listed; the failed partners' back to payable. */
export function completePayout({ ctx, input }: { ctx: Ctx; input: { id: string; reference?: string; failed?: string[] } }): Promise<PayoutRecord> {
  const failed = [...new Set((input.failed ?? []).map((f) => f.toLowerCase()))];
  return end(ctx, input.id, async (tx) => {
    const ended = await endPayout(tx.db, ctx.workspace.id, input.id, { status: 'completed', reference: input.reference, failed });
    if (ended) await settlePayout({ ctx: tx, input: { payoutId: input.id, failed } });
    return ended;
  });
}

/** POST …/cancel: every commission back to payable, the changes made meanwhile applied. */
export function cancelPayout({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<PayoutRecord> {
  return end(ctx, input.id, async (tx) => {
    const ended = await endPayout(tx.db, ctx.workspace.id, input.id, { status: 'cancelled' });
    if (ended) await releasePayout({ ctx: tx, input: { payoutId: input.id } });
    return ended;
  });
}

/**
 * GET …/file: the items of the format's method (csv: all), part `part` of the rows the provider
 * takes per file; opened details only here. How many parts there are, and the stream.
 */
export async function payoutFile({
  ctx,
  sealer,
  input,
}: {
  ctx: Ctx;
  sealer: Sealer;
  input: { id: string; format: PayoutFileFormat; part: number };
}): Promise<{ parts: number; filename: string; contentType: string; stream: Readable }> {
  const payout = await payoutRow(ctx.db, ctx.workspace.id, input.id);
  if (!payout) throw notFound('payout', input.id);
  const format = PAYOUT_FILE_FORMATS[input.format];
  const method = format.method ?? undefined;
  const count = await countItems(ctx.db, payout.id, method);
  const perPart = format.maxRows ?? Math.max(count, 1);
  const parts = Math.max(1, Math.ceil(count / perPart));
  if (input.part > parts) throw invalid('part', 'payout_file_part', { parts });
  const names = new Map<string, string>();
  async function* pages(): AsyncGenerator<PayoutFileItem[]> {
    let after = -1;
    let left = perPart;
    // Skip the rows of the earlier parts, then read this part's in pages.
    let skip = (input.part - 1) * perPart;
    while (left > 0) {
      const page = await itemRows(ctx.db, payout!.id, after, Math.min(FILE_PAGE, skip > 0 ? skip : left), method);
      if (page.length === 0) return;
      after = page.at(-1)!.position;
      if (skip > 0) {
        skip -= page.length;
        continue;
      }
      left -= page.length;
      const ids = page.map((i) => i.partnerId);
      const [destinations, profiles] = await Promise.all([payoutDestinations({ ctx, sealer, input: ids }), payoutProfiles({ ctx, input: ids })]);
      for (const [pid, p] of profiles) names.set(pid, p.name);
      yield page.map((i) => {
        const d = destinations.get(i.partnerId);
        return {
          partnerId: i.partnerId,
          partnerName: names.get(i.partnerId) ?? '',
          method: (i.method ?? 'bank') as PayoutFileItem['method'],
          email: d?.email ?? null,
          holderName: d?.holderName ?? null,
          destination: i.destination,
          amount: BigInt(i.amount),
          currency: payout!.currency,
        };
      });
    }
  }
  const text = { note: `Payout ${payout.id.slice(0, 8)}`, reference: `Payout ${payout.id.slice(0, 8)}` };
  return { parts, filename: format.filename(payout.id), contentType: format.contentType, stream: payoutFileStream(input.format, pages(), text) };
}

/** A partner's own payouts (the portal): what each paid them, newest first by default; amounts exact (bigint past 2^53). */
export async function partnerPayouts({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { partnerId: string; take: number; skip: number; sort: 'asc' | 'desc' };
}): Promise<(Omit<PartnerPayoutRow, 'amount'> & { amount: number | bigint })[]> {
  const found = await partnerPayoutRows(ctx.db, ctx.workspace.id, input.partnerId, input);
  return found.map((r) => {
    const amount = BigInt(r.amount);
    return { ...r, amount: amount <= BigInt(Number.MAX_SAFE_INTEGER) && amount >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(amount) : amount };
  });
}

/** Whether a pending payout holds an item of this partner (in the caller's transaction). */
export function partnerInPendingPayout({ ctx, input }: { ctx: Ctx; input: { partnerId: string } }): Promise<boolean> {
  return inPendingPayout(ctx.db, ctx.workspace.id, input.partnerId);
}
