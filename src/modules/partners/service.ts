import type { BaseCtx, Ctx } from '../../core/context.js';
import { AppError, invalid } from '../../core/errors.js';
import type { Item } from '../../core/items.js';
import { uniqueConstraintOf } from '../../core/transaction.js';
import type { Tx } from '../../db/connect.js';
import { bulkResource, normalisedHttps, type Indexed } from '../bulk/service.js';
import { newId } from '../../db/ids.js';
import { defaultGroupId, findProgram } from '../program/service.js';
import { eventBody, eventTypesWanted, recordEvents } from '../webhooks/service.js';
import { PROGRAM_FIELDS } from './schemas.js';
import { checkStatsScopes, statsSpan, withPartnerStats, type PartnerListQuery, type PartnerStats } from './list-stats.js';
import { checkStanding, statusBefore } from './standing-checks.js';
import {
  approvedByReferralKey,
  countInStatus,
  couponHolder,
  couponsOf,
  insertCoupons,
  lockOwnPartnerRow,
  partnerProgramRows,
  setPartnerUser,
  standingRows,
  tenantHolders,
  unlinkPartnerUsers,
  type StandingRow as PartnerStandingRow,
} from './standing-store.js';
import { ownPayoutDetails, writePayoutDetails, type PayoutDetailsInput } from './payout-details.js';
import { defaultLinkHolders, defaultLinkIds, lockAwaiting, setDefaultLinks, workspacesAwaiting, type AwaitingPartner } from './default-link-store.js';
import { partnerStore, type PartnerRow } from './store.js';
import { partnersNamed, setPayoutEmails, type MatchedPartner } from './import-store.js';
import type { Sealer } from '../../core/sealed.js';

/** A partner as the API shows it: the group `default` named where the column is null, the payout destination masked. */
export type Partner = PartnerRow;
export { standingSql as partnerStandingSql } from './standing-store.js';

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

/**
 * What a partner write does, in its transaction, for the partners it approves (created approved or
 * moved to approved) that have no default link yet: the partner-links module makes their default
 * links (operations.md §18) and answers each partner's new link id. Given through the wiring, so
 * partners need not know of links.
 */
export type PartnersApproved = (ctx: Ctx, approved: AwaitingPartner[]) => Promise<Map<string, string>>;

/**
 * What a partner write does, in its transaction, for the pending partners it approves or rejects
 * (an application decided by hand): the partner-applications module mails the applicant an
 * invitation or a notice (operations.md §18 "Applications"). Given through the wiring, so
 * partners need not know of applications, invitations or mail.
 */
export type PartnersDecided = (ctx: Ctx, decided: { partnerId: string; status: 'approved' | 'rejected' }[]) => Promise<void>;

/** What partner writes are given. */
export interface PartnerDeps {
  onApproved?: PartnersApproved;
  onDecided?: PartnersDecided;
}

async function afterWrite(tx: Tx, ctx: Ctx, deps: PartnerDeps, write: { inserts: Indexed[]; updates: Indexed[] }, rows: PartnerRow[]): Promise<void> {
  await writeCoupons(tx, ctx, write, rows);
  await unlinkUsers(tx, ctx, write, rows);
  const changed = write.updates.flatMap(({ item }) =>
    item.status === 'banned' || item.status === 'rejected' ? [{ partnerId: item.id as string, status: item.status as 'banned' | 'rejected' }] : [],
  );
  for (const listener of changed.length ? standingListeners : []) await listener({ ...ctx, db: tx }, changed);
  const approved = approvedBy(write).map(({ index }) => rows[index]!);
  // A row answered by the write shows the link a concurrent job may have made meanwhile (the update waited for its lock).
  const linkless = approved.filter((r) => r.defaultLinkId === null);
  if (linkless.length && deps.onApproved) {
    const made = await deps.onApproved(
      { ...ctx, db: tx },
      linkless.map((r) => ({ id: r.id, referralKey: r.referralKey })),
    );
    for (const r of linkless) r.defaultLinkId = made.get(r.id) ?? null;
  }
  await tellEnrolled({ ...ctx, db: tx }, approved);
  const decided = write.updates.flatMap(({ item }) =>
    statusBefore.get(item) === 'pending' && (item.status === 'approved' || item.status === 'rejected')
      ? [{ partnerId: item.id as string, status: item.status as 'approved' | 'rejected' }]
      : [],
  );
  if (decided.length && deps.onDecided) await deps.onDecided({ ...ctx, db: tx }, decided);
}

/** Entries with `userId: null` unlink the partner's person and clear their payout details; the answer shows it. */
async function unlinkUsers(tx: Tx, ctx: Ctx, write: { updates: Indexed[] }, rows: PartnerRow[]): Promise<void> {
  const unlinked = write.updates.filter(({ item }) => item.userId === null);
  if (unlinked.length === 0) return;
  await unlinkPartnerUsers(
    tx,
    ctx.workspace.id,
    unlinked.map(({ item }) => item.id as string),
  );
  for (const { index } of unlinked) Object.assign(rows[index]!, { userId: null, payoutMethod: null, payoutDestination: null, payoutDetailsChangedAt: null });
}

/** The entries of a write that approve their partner: created approved (the default) or moved to approved. */
function approvedBy(write: { inserts: Indexed[]; updates: Indexed[] }): Indexed[] {
  return [...write.inserts.filter(({ item }) => (item.status ?? 'approved') === 'approved'), ...write.updates.filter(({ item }) => item.status === 'approved')];
}

/** partner.enrolled for each partner created approved or moved to approved, once the workspace has a program. */
async function tellEnrolled(ctx: Ctx, enrolled: PartnerRow[]): Promise<void> {
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
const partnersWith = (deps: PartnerDeps) =>
  bulkResource({
    store: partnerStore,
    fields: ['name', 'email', 'image', ...PROGRAM_FIELDS],
    requiredOnInsert: ['name'],
    checkItem: (item, i) => {
      if (item.image !== undefined) item.image = normalisedHttps(item.image, `[${i}].image`, 2048);
    },
    checkWrite: checkStanding,
    afterWrite: (tx, ctx, write, rows) => afterWrite(tx, ctx, deps, write, rows),
  });

/** The resource for reads and deletes (which approve nobody), and each set of deps' own for writes. */
export const partners = partnersWith({});
const withDeps = new WeakMap<PartnerDeps, typeof partners>();
function partnersFor(deps: PartnerDeps): typeof partners {
  let found = withDeps.get(deps);
  if (!found) withDeps.set(deps, (found = partnersWith(deps)));
  return found;
}

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

export function createPartners({ ctx, deps, input }: { ctx: Ctx; deps: PartnerDeps; input: Item[] }): Promise<Partner[]> {
  return written(ctx, () => partnersFor(deps).create({ ctx, input }));
}

export function upsertPartners({ ctx, deps, input }: { ctx: Ctx; deps: PartnerDeps; input: Item[] }): Promise<Partner[]> {
  return written(ctx, () => partnersFor(deps).upsert({ ctx, input }));
}

/** Soft delete; the partners are archived too. */
export const deletePartners = partners.remove;

/** The routes' service: partners as the API shows them. */
export const partnerServiceWith = (deps: PartnerDeps) => ({
  list: listPartners,
  create: ({ ctx, input }: { ctx: Ctx; input: Item[] }) => createPartners({ ctx, deps, input }),
  upsert: ({ ctx, input }: { ctx: Ctx; input: Item[] }) => upsertPartners({ ctx, deps, input }),
  remove: deletePartners,
});

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

/** The live partner holding this coupon code (ignoring case), whatever their status, with their default link. */
export function partnerHoldingCoupon({ ctx, input }: { ctx: Ctx; input: string }): Promise<{ partnerId: string; defaultLinkId: string | null } | undefined> {
  return couponHolder(ctx.db, ctx.workspace.id, input);
}

/** The approved partner a referral key names (ignoring case), with their default link and first coupon code; undefined for an unknown, pending or banned one alike. */
export function approvedPartnerByReferralKey({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: string;
}): Promise<{ id: string; name: string; image: string | null; defaultLinkId: string | null; couponCode: string | null } | undefined> {
  return approvedByReferralKey(ctx.db, ctx.workspace.id, input);
}

/** Workspaces (but `except`) with a program and approved partners whose default link is still to be made (a job's look across workspaces). */
export function workspacesAwaitingDefaultLinks({ ctx, input }: { ctx: BaseCtx; input: { limit: number; except: string[] } }): Promise<string[]> {
  return workspacesAwaiting(ctx.db, input);
}

/**
 * Up to `limit` approved partners of the workspace without a default link, locked for the
 * transaction `ctx.db` must be (rows another holds are skipped, so no partner is taken twice).
 */
export function lockPartnersAwaitingDefaultLinks({ ctx, input }: { ctx: Ctx; input: { limit: number } }): Promise<AwaitingPartner[]> {
  return lockAwaiting(ctx.db, ctx.workspace.id, input.limit);
}

/** Sets each partner's default link (read-only in the API) where none is set yet; the partners set. */
export function setPartnersDefaultLinks({ ctx, input }: { ctx: Ctx; input: { partnerId: string; linkId: string }[] }): Promise<string[]> {
  return setDefaultLinks(ctx.db, ctx.workspace.id, input);
}

/** Every partner's default link in the workspace. */
export function partnersDefaultLinkIds({ ctx }: { ctx: Ctx }): Promise<string[]> {
  return defaultLinkIds(ctx.db, ctx.workspace.id);
}

/**
 * Refuses to delete these links (ids in the request's order) while one is the default link of an
 * approved partner (operations.md §18): 400 `default_link` naming its item. In the deletion's
 * transaction (`ctx.db`): the partners read are locked until it ends.
 */
export async function assertNoApprovedDefaultLinks({ ctx, input }: { ctx: Ctx; input: string[] }): Promise<void> {
  const held = new Set((await defaultLinkHolders(ctx.db, ctx.workspace.id, input)).filter((h) => h.status === 'approved').map((h) => h.linkId));
  const i = input.findIndex((id) => held.has(id));
  if (i >= 0) throw new AppError('default_link', { field: `[${i}]`, id: input[i]! });
}

/** Live partners of the workspace whose e-mail or referral key (ignoring case) is one of these (an affiliate-tool import matches its rows so). */
export function partnersByEmailOrKey({ ctx, input }: { ctx: Ctx; input: { emails: string[]; keys: string[] } }): Promise<MatchedPartner[]> {
  return partnersNamed(
    ctx.db,
    ctx.workspace.id,
    input.emails.map((e) => e.toLowerCase()),
    input.keys.map((k) => k.toLowerCase()),
  );
}

/**
 * Payout e-mails an import brings (operations.md §18 "Moving in"), set only for partners without
 * payout details, and counted as a change of details (payouts leave them out for 7 days unless
 * named); the partners set. In the caller's transaction.
 */
export function importPayoutEmails({
  ctx,
  sealer,
  input,
}: {
  ctx: Ctx;
  sealer: Sealer;
  input: { partnerId: string; method: 'paypal' | 'wise'; email: string }[];
}): Promise<string[]> {
  return setPayoutEmails(ctx.db, ctx.workspace.id, sealer, ctx.now, input);
}

export type { MatchedPartner } from './import-store.js';
export type { AwaitingPartner } from './default-link-store.js';
export { providePartnerEarnings, type EarningsReader, type PartnerEarnings, type PartnerListQuery, type PartnerStats } from './list-stats.js';
export {
  payoutDestinations,
  payoutProfiles,
  type PayoutDestination,
  type PayoutDetailsInput,
  type PayoutDetailsView,
  type PayoutMethod,
  type PayoutProfile,
} from './payout-details.js';
export { maskEmail } from './import-store.js';

/**
 * A partner claimed by the person who accepted their invitation (operations.md §18
 * "Invitations"), in the caller's transaction: their `userId` set, and a partner invited or
 * pending approved as any approval is (the default link, `partner.enrolled`). 409
 * `partner_claimed` when someone already signs in as them; undefined for a partner deleted since.
 */
export async function claimPartner({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: PartnerDeps;
  input: { partnerId: string; userId: string };
}): Promise<Partner | undefined> {
  const [standing] = await standingRows(ctx.db, ctx.workspace.id, [input.partnerId]);
  if (!standing) return undefined;
  if (!(await setPartnerUser(ctx.db, ctx.workspace.id, input.partnerId, input.userId))) throw new AppError('partner_claimed');
  if (standing.status === 'invited' || standing.status === 'pending') {
    const [approved] = await upsertPartners({ ctx, deps, input: [{ id: input.partnerId, status: 'approved' }] });
    return approved;
  }
  return (await shown(ctx, await partners.byIds({ ctx, input: [input.partnerId] })))[0];
}

/** How many live partners of the workspace are pending (applications stop past 500). */
export function pendingPartnerCount({ ctx }: { ctx: Ctx }): Promise<number> {
  return countInStatus(ctx.db, ctx.workspace.id, 'pending');
}

/**
 * The partner holding a tenant id (the embedding product's user id), deleted ones included since
 * they keep it (the unique index holds it too): their id and whether they are live, or undefined.
 */
export async function partnerHoldingTenant({ ctx, input: tenantId }: { ctx: Ctx; input: string }): Promise<{ id: string; live: boolean } | undefined> {
  const [holder] = await tenantHolders(ctx.db, ctx.workspace.id, [tenantId]);
  if (!holder) return undefined;
  const [live] = await partners.byIds({ ctx, input: [holder.partnerId] });
  return { id: holder.partnerId, live: live !== undefined };
}

/** The programs a person partners in (GET /api/me `partnerPrograms`, operations.md §18 Partner portal): program id, name, their status. */
export async function partnerProgramsOf({ ctx, input }: { ctx: BaseCtx; input: { userId: string } }): Promise<{ id: string; name: string; status: string }[]> {
  return (await partnerProgramRows(ctx.db, input.userId)).map(({ id, name, status }) => ({ id, name, status }));
}

/** A program a person partners in: which workspace, which partner they sign in as, their status (the portal's choice of program). */
export interface PartnerSeat {
  programId: string;
  programName: string;
  status: string;
  workspaceId: string;
  partnerId: string;
}

export async function partnerSeatsOf({ ctx, input }: { ctx: BaseCtx; input: { userId: string } }): Promise<PartnerSeat[]> {
  return (await partnerProgramRows(ctx.db, input.userId)).map((r) => ({
    programId: r.id,
    programName: r.name,
    status: r.status,
    workspaceId: r.workspaceId,
    partnerId: r.partnerId,
  }));
}

/**
 * The live partner `userId` signs in as, locked for the caller's transaction: a portal write
 * checks it there, so an owner's unlink or ban in between is seen. Undefined once unlinked.
 */
export function lockOwnPartner({ ctx, input }: { ctx: Ctx; input: { partnerId: string; userId: string } }): Promise<PartnerStandingRow | undefined> {
  return lockOwnPartnerRow(ctx.db, ctx.workspace.id, input.partnerId, input.userId);
}

/** A partner's own payout details as the portal shows them (masked), and their payout e-mail before a change. */
export function ownPayoutDetailsOf({ ctx, sealer, input }: { ctx: Ctx; sealer: Sealer; input: { partnerId: string } }) {
  return ownPayoutDetails(ctx.db, sealer, ctx.workspace.id, input.partnerId);
}

/** Sets a partner's payout details (sealed), by their own session only: in the caller's transaction. */
export function setOwnPayoutDetails({ ctx, sealer, input }: { ctx: Ctx; sealer: Sealer; input: { partnerId: string; details: PayoutDetailsInput } }) {
  return writePayoutDetails(ctx.db, sealer, ctx.workspace.id, input.partnerId, ctx.now, input.details);
}
