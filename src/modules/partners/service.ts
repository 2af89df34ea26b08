import type { Ctx } from '../../core/context.js';
import { invalid } from '../../core/errors.js';
import type { Item } from '../../core/items.js';
import { uniqueConstraintOf } from '../../core/transaction.js';
import type { Tx } from '../../db/connect.js';
import { bulkResource, normalisedHttps, type Indexed } from '../bulk/service.js';
import { newId } from '../../db/ids.js';
import { defaultGroupId, findProgram } from '../program/service.js';
import { eventBody, eventTypesWanted, recordEvents } from '../webhooks/service.js';
import { PROGRAM_FIELDS } from './schemas.js';
import { checkStatsScopes, statsSpan, withPartnerStats, type PartnerListQuery, type PartnerStats } from './list-stats.js';
import { checkStanding } from './standing-checks.js';
import { couponHolder, couponsOf, insertCoupons, standingRows } from './standing-store.js';
import { partnerStore, type PartnerRow } from './store.js';

/** A partner as the API shows it: the group `default` named where the column is null, the payout destination masked. */
export type Partner = PartnerRow;

/** The partners' coupon codes, stored after their rows; the rows answered get their lists. */
async function writeCoupons(tx: Tx, ctx: Ctx, write: { inserts: Indexed[]; updates: Indexed[] }, rows: PartnerRow[]): Promise<void> {
  const entries = [...write.inserts, ...write.updates];
  const codes = entries.flatMap(({ item }) =>
    ((item.couponCodes as string[] | undefined) ?? []).map((code, position) => ({ partnerId: item.id as string, code, position })),
  );
  await insertCoupons(tx, ctx.workspace.id, codes);
  const kept = write.updates.filter((u) => u.item.couponCodes === undefined).map((u) => u.item.id as string);
  const stored = await couponsOf(tx, ctx.workspace.id, kept);
  for (const { index, item } of entries) rows[index]!.couponCodes = (item.couponCodes as string[] | undefined) ?? stored.get(item.id as string) ?? [];
}

/**
 * What another module does, in the same transaction, when partners are banned or rejected (the
 * commissions module reverses their unpaid commissions): registered by that module's setUp,
 * so partners need not know of it.
 */
export type StandingListener = (ctx: Ctx, changed: { partnerId: string; status: 'banned' | 'rejected' }[]) => Promise<void>;
const standingListeners = new Set<StandingListener>();
export function onPartnersBannedOrRejected(listener: StandingListener): void {
  standingListeners.add(listener);
}

async function afterWrite(tx: Tx, ctx: Ctx, write: { inserts: Indexed[]; updates: Indexed[] }, rows: PartnerRow[]): Promise<void> {
  await writeCoupons(tx, ctx, write, rows);
  const changed = write.updates.flatMap(({ item }) =>
    item.status === 'banned' || item.status === 'rejected' ? [{ partnerId: item.id as string, status: item.status as 'banned' | 'rejected' }] : [],
  );
  for (const listener of changed.length ? standingListeners : []) await listener({ ...ctx, db: tx }, changed);
  await tellEnrolled({ ...ctx, db: tx }, write, rows);
}

/** partner.enrolled for each partner created approved or moved to approved, once the workspace has a program. */
async function tellEnrolled(ctx: Ctx, write: { inserts: Indexed[]; updates: Indexed[] }, rows: PartnerRow[]): Promise<void> {
  const enrolled = [
    ...write.inserts.filter(({ item }) => (item.status ?? 'approved') === 'approved'),
    ...write.updates.filter(({ item }) => item.status === 'approved'),
  ].map(({ index }) => rows[index]!);
  if (enrolled.length === 0) return;
  const wanted = await eventTypesWanted({ ctx, input: { workspaceId: ctx.workspace.id } });
  if (!wanted.has('partner.enrolled') || !(await findProgram({ ctx }))) return;
  const records = await shown(ctx, enrolled);
  const events = records.map((p) => ({
    id: newId(),
    workspaceId: ctx.workspace.id,
    type: 'partner.enrolled' as const,
    body: eventBody('partner.enrolled', p.updatedAt, p),
  }));
  await recordEvents({ ctx, input: { events } });
}

/** Partners delete softly: gone from every read, kept for the history of their links and clicks; deleting archives them. */
export const partners = bulkResource({
  store: partnerStore,
  fields: ['name', 'email', 'image', ...PROGRAM_FIELDS],
  requiredOnInsert: ['name'],
  checkItem: (item, i) => {
    if (item.image !== undefined) item.image = normalisedHttps(item.image, `[${i}].image`, 2048);
  },
  checkWrite: checkStanding,
  afterWrite,
});

/** Which unique index a lost race hit, as the field a 400 names. */
const UNIQUE_FIELDS: Record<string, string> = {
  partners_referral_key: 'referralKey',
  partners_tenant: 'tenantId',
  partner_coupon_codes_code: 'couponCodes',
};

/** The rows as the API shows them. */
async function shown(ctx: Ctx, rows: PartnerRow[]): Promise<Partner[]> {
  const byDefault = rows.some((r) => r.groupId === null) ? ((await defaultGroupId({ ctx })) ?? null) : null;
  // The destination is the masked copy kept beside the sealed details, which are never opened here.
  return rows.map((r) => ({ ...r, groupId: r.groupId ?? byDefault }));
}

/** A write, with a uniqueness race lost after the checks answered as the client's 400. */
async function written(ctx: Ctx, run: () => Promise<PartnerRow[]>): Promise<Partner[]> {
  try {
    return await shown(ctx, await run());
  } catch (err) {
    const field = UNIQUE_FIELDS[uniqueConstraintOf(err) ?? ''];
    if (field) throw invalid(field, 'already_exists');
    throw err;
  }
}

/**
 * A page of partners; with withStats, each with their stats (list-stats.ts), which need the
 * caller's `scopes`: analyticsRead (403 without it), and programsRead for the earnings.
 */
export async function listPartners({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: PartnerListQuery & { scopes?: ReadonlySet<string> };
}): Promise<(Partner & { stats?: PartnerStats })[]> {
  if (!input.withStats) return shown(ctx, await partners.list({ ctx, input }));
  const scopes = input.scopes ?? new Set<string>();
  checkStatsScopes(input, scopes);
  const span = statsSpan(input, ctx.now);
  return withPartnerStats(ctx, await shown(ctx, await partners.list({ ctx, input })), span, scopes);
}

export function createPartners({ ctx, input }: { ctx: Ctx; input: Item[] }): Promise<Partner[]> {
  return written(ctx, () => partners.create({ ctx, input }));
}

export function upsertPartners({ ctx, input }: { ctx: Ctx; input: Item[] }): Promise<Partner[]> {
  return written(ctx, () => partners.upsert({ ctx, input }));
}

/** Soft delete; the partners are archived too. */
export const deletePartners = partners.remove;

/** The routes' service: partners as the API shows them. */
export const partnerService = { list: listPartners, create: createPartners, upsert: upsertPartners, remove: deletePartners };

/** Every partner of the workspace, oldest first, in keyset pages, as the API shows them (the NDJSON export reads these). */
export async function* workspacePartnerPages({ ctx }: { ctx: Ctx }): AsyncGenerator<Partner[]> {
  for await (const page of partners.pages({ ctx })) yield shown(ctx, page);
}

/** The ids among `ids` that are active partners of the workspace (for links). */
export const existingPartners = partners.existing;

/** A partner's standing as the commission writes need it. */
export interface PartnerStanding {
  status: string;
  /** The column: null is the group `default`. */
  groupId: string | null;
  userId: string | null;
  email: string | null;
}

/** The standing of these live partners of the workspace; deleted partners and ids not found are absent. */
export async function partnerStanding({ ctx, input }: { ctx: Ctx; input: string[] }): Promise<Map<string, PartnerStanding>> {
  const found = await standingRows(ctx.db, ctx.workspace.id, input);
  return new Map(found.map(({ id, ...standing }) => [id, standing]));
}

/** The partner holding this coupon code, ignoring case, whatever their status. */
export function partnersHoldingCoupon({ ctx, input }: { ctx: Ctx; input: string }): Promise<string | undefined> {
  return couponHolder(ctx.db, ctx.workspace.id, input);
}

export { providePartnerEarnings, type EarningsReader, type PartnerEarnings, type PartnerListQuery, type PartnerStats } from './list-stats.js';
export { payoutDestinations, payoutProfiles, type PayoutDestination, type PayoutProfile } from './payout-details.js';
