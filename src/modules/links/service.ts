import { newId } from '../../db/ids.js';
import { keysetPages } from '../../db/keyset.js';
import type { IdHolder } from '../../db/resource-table.js';
import { invalid } from '../../core/errors.js';
import type { ListParams } from '../../core/list-params.js';
import { assertBulkSize, assertDistinct, upsertCounts } from '../bulk/service.js';
import { audit } from '../../core/audit.js';
import { afterCommit, isUniqueViolation, withTransaction } from '../../core/transaction.js';
import { type Ctx } from '../../core/context.js';
import type { Tx } from '../../db/connect.js';
import { existingCollections } from '../collections/service.js';
import { assertNoApprovedDefaultLinks, existingPartners } from '../partners/service.js';
import { existingTags } from '../tags/service.js';
import { existingLogos, type QrDesign } from '../qr/service.js';
import type { FrameChecker } from './frame-check.js';
import { toLink, type Link, type LinkSettings } from './record.js';
import { checkLinkInput, type LinkInput } from './rules.js';
import { isReservedShortId, isShortId, newShortId } from './short-id.js';
import { linkEventsWanted, recordLinkEvents } from './webhook-events.js';
import { checkAliases, freeAliases, isAliasConflict, writeAliases } from './alias-writes.js';
import { checkKeys, freeKeysOfDeleted, placeLinks, shortIdsTakenAsKeys, writeKeys } from './branded-writes.js';
import { shortLinkHost } from './record.js';
import { claimedHosts, defaultDomainHost, normalizeHost } from '../domains/service.js';
import { insertFreeAliases, retargetUrls } from './partner-link-store.js';
import { checkHttpsUrl } from '../../core/url-rule.js';
import { checkStatsQuery, listLinksWithStats, type StatsQuery } from './list-stats.js';
import { planTestWrites, writeTests } from './test-writes.js';
import type { StoredTest, TestInput } from './test-rules.js';
import {
  countLinkRows,
  externalIdHolders,
  linkPage,
  listLinkRows,
  linkRowsLocked,
  linkStore,
  linksForUpdate,
  redirectFieldsByAlias,
  redirectFieldsByKey,
  redirectFieldsByShortId,
  releaseExternalIds,
  replaceLinkTags,
  type LinkFilters,
  type RedirectFields,
  type RedirectRow,
  type RedirectTest,
  type StoredDestinations,
} from './store.js';

export interface LinkDeps extends LinkSettings {
  checkFrame: FrameChecker;
  /** How many cloaked destinations of one request are fetched at once. */
  frameCheckConcurrency?: number;
  /** Told after commit which links changed or went, so every redirect cache drops them. */
  onChanged?: (linkIds: string[]) => Promise<void> | void;
  /** Told after a commit that queued webhook deliveries (wakes the delivery worker). */
  onEventsWritten?: () => void;
  /** Told after a commit that wrote many rows (a bulk request, an import's batch): their tables' statistics go stale. */
  onBulkWritten?: () => void;
}

/** From this many items a write counts as bulk for the table statistics (infra/table-stats.ts). */
const BULK_ROWS = 100;

interface Entry {
  index: number;
  /** Set for updates; inserts get theirs when written. */
  id?: string;
  fields: LinkInput;
  /** An import's insert: the link's own id, its short id (tried first, a new one if taken) and timestamps. */
  keep?: { id: string; shortId?: string; createdAt?: string; updatedAt?: string };
}

export interface LinkListFilters extends ListParams {
  externalId?: string;
  tenantId?: string;
  partnerId?: string;
  collectionId?: string;
  tagId?: string;
  search?: string;
  /** operations.md §21: with domain (default: the workspace's default domain), the link holding this key. */
  key?: string;
  /** operations.md §21: only links on this host (the short-link host, or a claimed one). */
  domain?: string;
  /** false: the matches are not counted. */
  count?: boolean;
}

export type LinkListQuery = LinkListFilters & Omit<StatsQuery, keyof ListParams>;

/** A list's host as link_keys stores it: '' for the short-link host; a claimed host normalised (a malformed one matches nothing). */
function hostFilter(domain: string, deps: LinkDeps): string {
  const raw = domain.trim().toLowerCase();
  if (raw === shortLinkHost(deps.shortLinkBaseUrl).toLowerCase()) return '';
  const verdict = normalizeHost(raw, new Set());
  return verdict.ok ? verdict.host : raw;
}

/** The filters of a list; `key` without `domain` looks on the workspace's default domain. */
async function filtersFor(ctx: Ctx, deps: LinkDeps, q: LinkListQuery): Promise<LinkFilters> {
  const f = filtersOf(q);
  if (q.domain !== undefined) f.host = hostFilter(q.domain, deps);
  if (q.key !== undefined) f.key = { host: f.host ?? (await defaultDomainHost({ ctx })) ?? '', key: q.key };
  return f;
}

function filtersOf(q: LinkListQuery): LinkFilters {
  const anyOf: LinkFilters['anyOf'] = [];
  if (q.id) anyOf.push({ column: 'id', value: q.id, type: 'uuid' });
  if (q.externalId !== undefined) anyOf.push({ column: 'external_id', value: q.externalId, type: 'text' });
  if (q.tenantId !== undefined) anyOf.push({ column: 'tenant_id', value: q.tenantId, type: 'text' });
  if (q.partnerId) anyOf.push({ column: 'partner_id', value: q.partnerId, type: 'uuid' });
  // An empty search matches everything, as no search does.
  return { anyOf, collectionId: q.collectionId, tagId: q.tagId, search: q.search || undefined };
}

export async function listLinks({ ctx, deps, input: q }: { ctx: Ctx; deps: LinkDeps; input: LinkListQuery }): Promise<Link[]> {
  const found = await listLinkRows(ctx.db, ctx.workspace.id, await filtersFor(ctx, deps, q), q);
  return found.map((row) => toLink(row, deps));
}

/** Every live link of the workspace, oldest first, in keyset pages as the list shows them (the NDJSON export reads these). */
export async function* workspaceLinkPages({ ctx, deps }: { ctx: Ctx; deps: LinkDeps }): AsyncGenerator<Link[]> {
  for await (const rows of keysetPages((after, limit) => linkPage(ctx.db, ctx.workspace.id, after, limit))) yield rows.map((row) => toLink(row, deps));
}

/** A page of links and how many match the filters in all (for X-Total-Count), unless count is false. */
export async function listLinksWithTotal({
  ctx,
  deps,
  input: q,
}: {
  ctx: Ctx;
  deps: LinkDeps;
  /** scopes: the caller's, which withStats checks (it needs analyticsRead too). */
  input: LinkListQuery & { scopes: ReadonlySet<string> };
}): Promise<{ links: Link[]; total?: number }> {
  checkStatsQuery(q, q.scopes);
  const filters = await filtersFor(ctx, deps, q);
  const links = q.withStats
    ? await listLinksWithStats(ctx, deps, filters, q)
    : (await listLinkRows(ctx.db, ctx.workspace.id, filters, q)).map((row) => toLink(row, deps));
  if (q.count === false) return { links };
  // A short first page is the whole result: no count needed.
  const total = q.skip === 0 && links.length < q.take ? links.length : await countLinkRows(ctx.db, ctx.workspace.id, filters);
  return { links, total };
}

export async function createLinks({ ctx, deps, input }: { ctx: Ctx; deps: LinkDeps; input: LinkInput[] }): Promise<Link[]> {
  assertBulkSize(ctx.workspace, input.length);
  const entries = input.map((raw, index) => ({ index, fields: checkLinkInput(raw, index, 'create', ctx.workspace.plan).fields }));
  return writeLinks(ctx, deps, entries, input.length, 'create');
}

export async function upsertLinks({ ctx, deps, input }: { ctx: Ctx; deps: LinkDeps; input: (LinkInput & { id?: unknown })[] }): Promise<Link[]> {
  assertBulkSize(ctx.workspace, input.length);
  const ids = input.map((raw) => (typeof raw.id === 'string' ? raw.id.toLowerCase() : undefined));
  assertDistinct(ids, (i) => `[${i}].id`);
  const entries: Entry[] = input.map((raw, index) => {
    const id = ids[index];
    const mode = id ? 'update' : 'create';
    return { index, id, fields: checkLinkInput(raw, index, mode, ctx.workspace.plan).fields };
  });
  return writeLinks(ctx, deps, entries, input.length, 'upsert');
}

export async function deleteLinks({ ctx, deps, input }: { ctx: Ctx; deps: LinkDeps; input: string[] }): Promise<string[]> {
  assertBulkSize(ctx.workspace, input.length);
  const ids = input.map((id) => id.toLowerCase());
  assertDistinct(ids, (i) => `[${i}]`);
  const queued = await withTransaction(ctx.db, async (tx) => {
    const wanted = await linkEventsWanted(tx, ctx);
    // An approved partner's default link stays (operations.md §18): the whole request fails, naming it.
    await assertNoApprovedDefaultLinks({ ctx: { ...ctx, db: tx }, input: ids });
    // link.deleted carries the link as it was: read (and locked) before it goes.
    const before = wanted.has('link.deleted') ? await linkRowsLocked(tx, ctx.workspace.id, ids) : [];
    const deleted = new Set(await linkStore.deleteMany(tx, ctx.workspace.id, ids));
    ids.forEach((id, i) => {
      if (!deleted.has(id)) throw invalid(`[${i}]`, 'not_found');
    });
    await freeAliases(tx, ctx.workspace.id, ids);
    await freeKeysOfDeleted(tx, ctx.workspace.id, ids);
    await audit(ctx, tx, { ids, counts: { deleted: ids.length } });
    return recordLinkEvents(tx, ctx, deps.sealer, wanted, { 'link.deleted': () => before.map((row) => toLink(row, deps)) });
  });
  await deps.onChanged?.(ids);
  if (queued > 0) deps.onEventsWritten?.();
  if (ids.length >= BULK_ROWS) deps.onBulkWritten?.();
  return ids;
}

/** Runs `fn` over items with at most `limit` in flight. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The destinations a cloaked visitor can land on (expiry redirects plainly, so not expiredUrl). */
const CLOAKED_DESTINATIONS = ['url', 'ios', 'android', 'geo'] as const;

/**
 * What a write leaves a cloaked link forwarding to, when the write makes or keeps it cloaked
 * and touches cloaked or any destination: the merged final set, each named as the API names it.
 */
function destinationsToCheck(e: Entry, before: StoredDestinations | undefined): { field: string; url: string }[] {
  const f = e.fields;
  const cloaked = (f.cloaked as boolean | undefined) ?? before?.cloaked ?? false;
  if (!cloaked || (f.cloaked !== true && f.test === undefined && CLOAKED_DESTINATIONS.every((k) => f[k] === undefined))) return [];
  const final = <K extends (typeof CLOAKED_DESTINATIONS)[number]>(k: K) => (f[k] !== undefined ? f[k] : before?.[k]);
  const out: { field: string; url: string }[] = [];
  for (const k of ['url', 'ios', 'android'] as const) {
    const url = final(k);
    if (typeof url === 'string') out.push({ field: k, url });
  }
  const geo = final('geo') as Record<string, string> | null | undefined;
  for (const [country, url] of Object.entries(geo ?? {})) out.push({ field: `geo.${country}`, url });
  // A test's variants are where a cloaked visitor lands too (operations.md §20).
  const test = (f.test !== undefined ? f.test : before?.test) as TestInput | null | undefined;
  test?.variants.forEach((v, j) => out.push({ field: `test.variants[${j}].url`, url: v.url }));
  return out;
}

/**
 * Cloaked destinations must allow framing: every one a cloaked visitor can land on, fetched
 * once per distinct URL of the request, on a create or an update that changes any of them.
 */
async function checkCloaking(deps: LinkDeps, entries: Entry[], current: Map<string, StoredDestinations>): Promise<void> {
  const targets = entries.flatMap((e) => destinationsToCheck(e, e.id ? current.get(e.id) : undefined).map((d) => ({ index: e.index, ...d })));
  const urls = [...new Set(targets.map((t) => t.url))];
  const verdicts = new Map((await mapLimit(urls, deps.frameCheckConcurrency ?? 8, (u) => deps.checkFrame(u))).map((v, i) => [urls[i]!, v]));
  for (const t of targets) {
    const v = verdicts.get(t.url)!;
    if (!v.ok) throw invalid(`[${t.index}].${t.field}`, v.reason);
  }
}

const logoOf = (e: Entry): string | null | undefined => (e.fields.qrDesign as QrDesign | null | undefined)?.logoId;

/** Every referenced collection, tag, partner and QR logo must be live in the workspace: four statements at most. */
async function checkReferences(ctx: Ctx, entries: Entry[]): Promise<void> {
  const collectionIds = [...new Set(entries.map((e) => e.fields.collectionId as string | undefined).filter((v) => v !== undefined))];
  const tagIds = [...new Set(entries.flatMap((e) => (e.fields.tagIds as string[] | undefined) ?? []))];
  const partnerIds = [...new Set(entries.map((e) => e.fields.partnerId as string | null | undefined).filter((v) => typeof v === 'string'))];
  const logoIds = [...new Set(entries.map(logoOf).filter((v) => typeof v === 'string'))];
  const [collections, tags, partners, logos] = [
    await existingCollections({ ctx, input: collectionIds }),
    await existingTags({ ctx, input: tagIds }),
    await existingPartners({ ctx, input: partnerIds }),
    await existingLogos({ ctx, input: logoIds }),
  ];
  for (const e of entries) {
    const f = e.fields;
    if (typeof f.collectionId === 'string' && !collections.has(f.collectionId)) throw invalid(`[${e.index}].collectionId`, 'not_found');
    ((f.tagIds as string[] | undefined) ?? []).forEach((t, j) => {
      if (!tags.has(t)) throw invalid(`[${e.index}].tagIds[${j}]`, 'not_found');
    });
    if (typeof f.partnerId === 'string' && !partners.has(f.partnerId)) throw invalid(`[${e.index}].partnerId`, 'not_found');
    const logoId = logoOf(e);
    if (typeof logoId === 'string' && !logos.has(logoId)) throw invalid(`[${e.index}].qrDesign.logoId`, 'not_found');
  }
}

/** externalId is unique among the workspace's active links, counting this request's changes. */
async function checkExternalIds(tx: Ctx['db'], workspaceId: string, entries: Entry[]): Promise<void> {
  const setting = entries.filter((e) => typeof e.fields.externalId === 'string');
  assertDistinct(
    entries.map((e) => (typeof e.fields.externalId === 'string' ? e.fields.externalId : undefined)),
    (i) => `[${entries[i]!.index}].externalId`,
  );
  const releasing = new Set(entries.filter((e) => e.id && e.fields.externalId !== undefined).map((e) => e.id!));
  const holders = await externalIdHolders(
    tx,
    workspaceId,
    setting.map((e) => e.fields.externalId as string),
  );
  for (const h of holders) {
    const e = setting.find((s) => s.fields.externalId === h.externalId)!;
    if (e.id !== h.id && !releasing.has(h.id)) throw invalid(`[${e.index}].externalId`, 'already_exists');
  }
}

function toStored(fields: LinkInput, deps: LinkDeps): Record<string, unknown> {
  const { tagIds: _tags, aliases: _aliases, domain: _domain, key: _key, password, qrDesign, ...rest } = fields;
  const stored: Record<string, unknown> = { ...rest };
  if (password !== undefined) stored.passwordSealed = password === null ? null : deps.sealer.seal('link-password', password as string);
  // The logo is a column of its own (deleting the logo clears it); the rest of the design is one value.
  if (qrDesign !== undefined) {
    const { logoId, ...design } = (qrDesign as QrDesign | null) ?? { logoId: null };
    stored.qrDesign = qrDesign === null ? null : design;
    stored.qrLogoId = logoId;
  }
  return stored;
}

/**
 * Inserts with fresh short ids (or the ones items bring, first); the rare colliding ones (with a
 * short id, or a key on the short-link host: a short id never shadows a key) are retried with new ids.
 */
async function insertWithShortIds(tx: Ctx['db'], workspaceId: string, items: Record<string, unknown>[]): Promise<void> {
  let pending = items;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === 6) throw new Error('could not allocate unique short ids');
    for (const item of pending) if (attempt > 0 || item.shortId === undefined) item.shortId = newShortId();
    const keys = await shortIdsTakenAsKeys(
      tx,
      pending.map((item) => item.shortId as string),
    );
    for (const item of pending) if (keys.has(item.shortId as string)) item.shortId = newShortId();
    const inserted = new Set((await linkStore.insertManyIds(tx, workspaceId, pending)).map((r) => r.id));
    pending = pending.filter((item) => !inserted.has(item.id as string));
  }
}

/** Writes the entries in one transaction with the request's audit entry (ids, and counts as a create or an upsert counts). */
async function writeLinks(ctx: Ctx, deps: LinkDeps, entries: Entry[], total: number, kind: 'create' | 'upsert'): Promise<Link[]> {
  const updates = entries.filter((e) => e.id);
  const current: Map<string, StoredDestinations & { shortId: string }> = new Map(
    (
      await linksForUpdate(
        ctx.db,
        ctx.workspace.id,
        updates.map((e) => e.id!),
      )
    ).map((r) => [r.id, r]),
  );
  for (const e of updates) if (!current.has(e.id!)) throw invalid(`[${e.index}].id`, 'not_found');
  await checkCloaking(deps, entries, current);

  const inserts = entries.filter((e) => !e.id).map((e) => ({ ...e, id: e.keep?.id ?? newId() }));
  const tests = planTestWrites(
    [...inserts.map((e) => ({ ...e, update: false })), ...updates.map((e) => ({ ...e, id: e.id!, update: true }))],
    (id) => current.get(id)?.test ?? null,
    ctx.now,
  );
  try {
    const { written, queued } = await withTransaction(ctx.db, async (tx) => {
      await checkReferences({ ...ctx, db: tx }, entries);
      await checkExternalIds(tx, ctx.workspace.id, entries);
      await checkAliases(tx, ctx, [...inserts, ...updates]);
      // The new links' short ids, once inserted (insertWithShortIds writes them into these items).
      const stored = inserts.map((e) => ({ ...toStored(e.fields, deps), ...e.keep, id: e.id }));
      const storedById = new Map(stored.map((item) => [item.id, item]));
      const shortIdOf = (id: string) => current.get(id)?.shortId ?? (storedById.get(id)!.shortId as string);
      const placements = await placeLinks(tx, ctx, deps.shortLinkBaseUrl, { inserts, updates, shortIdOf });
      await checkKeys(tx, placements, [...inserts, ...updates], deps.shortLinkBaseUrl);
      await releaseExternalIds(
        tx,
        ctx.workspace.id,
        updates.filter((e) => e.fields.externalId !== undefined).map((e) => e.id!),
      );
      await insertWithShortIds(tx, ctx.workspace.id, stored);
      const updated = await linkStore.updateManyIds(
        tx,
        ctx.workspace.id,
        updates.map((e) => ({ ...toStored(e.fields, deps), id: e.id })),
      );
      if (updated.length !== updates.length) {
        const done = new Set(updated.map((r) => r.id));
        const lost = updates.find((e) => !done.has(e.id!))!;
        throw invalid(`[${lost.index}].id`, 'not_found');
      }
      await writeTests(tx, ctx.workspace.id, tests, ctx.now);
      const retagged = [...inserts, ...updates].filter((e) => e.fields.tagIds !== undefined);
      await replaceLinkTags(
        tx,
        updates.filter((e) => e.fields.tagIds !== undefined).map((e) => e.id!),
        retagged.map((e) => ({ linkId: e.id!, tagIds: e.fields.tagIds as string[] })),
      );
      await writeAliases(tx, ctx.workspace.id, [...inserts, ...updates]);
      await writeKeys(tx, ctx.workspace.id, placements, { shortIdOf, shortLinkBaseUrl: deps.shortLinkBaseUrl });
      const written = new Map(
        (
          await linkStore.byIds(
            tx,
            ctx.workspace.id,
            [...inserts, ...updates].map((e) => e.id!),
          )
        ).map((r) => [r.id, toLink(r, deps)]),
      );
      const queued = await recordLinkEvents(tx, ctx, deps.sealer, await linkEventsWanted(tx, ctx), {
        'link.created': () => inserts.map((e) => written.get(e.id)!),
        'link.updated': () => updates.map((e) => written.get(e.id!)!),
      });
      const counts = kind === 'create' ? { created: inserts.length } : upsertCounts(inserts, updates);
      await audit(ctx, tx, { ids: [...inserts, ...updates].map((e) => e.id!), counts });
      return { written, queued };
    });
    if (updates.length) await deps.onChanged?.(updates.map((e) => e.id!));
    if (queued > 0) deps.onEventsWritten?.();
    if (total >= BULK_ROWS) deps.onBulkWritten?.();
    const out = new Array<Link>(total);
    for (const e of [...inserts, ...updates]) out[e.index] = written.get(e.id!)!;
    return out;
  } catch (err) {
    // Another request took the alias or external id after our check: still the client's 400.
    if (isUniqueViolation(err) && isAliasConflict(err)) throw invalid('aliases', 'alias_taken');
    if (isUniqueViolation(err)) throw invalid('externalId', 'already_exists');
    // The logo was deleted after our check.
    if (isLogoGone(err)) throw invalid('qrDesign.logoId', 'not_found');
    throw err;
  }
}

function isLogoGone(err: unknown): boolean {
  const e = err as { constraint?: string; cause?: { constraint?: string } };
  return [e?.constraint, e?.cause?.constraint].includes('links_qr_logo_id_fkey');
}

/** A link an import writes (operations.md §13): `update` when `id` is already this workspace's link. */
export interface ImportedLink {
  id: string;
  update: boolean;
  fields: LinkInput;
  /** The short id it had where it came from: kept when free on this server, else a new one. */
  shortId?: string;
  createdAt?: string;
  updatedAt?: string;
}

/**
 * An import's links: inserts keep their id, timestamps and (when free) short id; updates go as
 * PUT's do. Checked as POST and PUT check (a 400 names the item, `[3].url`), in the caller's
 * transaction; not bounded by the plan's items per request (an import is not a bulk request).
 */
export async function importLinks({ ctx, deps, input }: { ctx: Ctx; deps: LinkDeps; input: ImportedLink[] }): Promise<Link[]> {
  const entries: Entry[] = input.map((r, index) => {
    const { fields } = checkLinkInput(r.fields, index, r.update ? 'update' : 'create', ctx.workspace.plan);
    if (r.update) return { index, id: r.id.toLowerCase(), fields };
    const shortId = r.shortId !== undefined && isShortId(r.shortId) && !isReservedShortId(r.shortId) ? r.shortId : undefined;
    return { index, fields, keep: { id: r.id.toLowerCase(), shortId, createdAt: r.createdAt, updatedAt: r.updatedAt } };
  });
  return writeLinks(ctx, deps, entries, input.length, 'upsert');
}

/**
 * Gives these links each an alias on a host, where the workspace holds the host active and the
 * alias is free server-wide (not an alias, nor a key of that host held or given up less than 30
 * days ago); one taken is skipped, not an error (a partner's default link, operations.md §18). In
 * the caller's transaction; the links that got theirs.
 */
export async function addFreeAliases({ ctx, input }: { ctx: Ctx; input: { linkId: string; host: string; path: string }[] }): Promise<string[]> {
  if (input.length === 0) return [];
  const held = await claimedHosts({ ctx, input: [...new Set(input.map((a) => a.host))] });
  return insertFreeAliases(
    ctx.db,
    ctx.workspace.id,
    input.filter((a) => held.get(a.host) === 'active'),
  );
}

/**
 * Moves the destination of those of these links whose `url` is still `from` to `to` (partners'
 * default links following the program's landing URL, operations.md §18), in the transaction
 * `ctx.db` must be: link.updated for each, and every redirect cache drops them once it commits.
 * A fixed number of statements; the links changed.
 */
export async function retargetLinks({ ctx, deps, input }: { ctx: Ctx; deps: LinkDeps; input: { ids: string[]; from: string; to: string } }): Promise<string[]> {
  const tx = ctx.db as Tx;
  const changed = await retargetUrls(tx, ctx.workspace.id, input);
  if (changed.length === 0) return changed;
  const wanted = await linkEventsWanted(tx, ctx);
  const updated = wanted.has('link.updated') ? (await linkStore.byIds(tx, ctx.workspace.id, changed)).map((row) => toLink(row, deps)) : [];
  const queued = await recordLinkEvents(tx, ctx, deps.sealer, wanted, { 'link.updated': () => updated });
  afterCommit(tx, () => {
    // A publish that fails leaves the cached links to their TTL (a minute), as a lost bus message does.
    void Promise.resolve(deps.onChanged?.(changed)).catch(() => undefined);
    if (queued > 0) deps.onEventsWritten?.();
  });
  return changed;
}

/** Which of these link ids exist, here or in another workspace (an import keeps free ids). */
export function linkHolders({ ctx, input }: { ctx: Ctx; input: string[] }): Promise<IdHolder[]> {
  return linkStore.holders(ctx.db, ctx.workspace.id, input);
}

/** The workspace's live links with these ids, as the API shows them (any order). */
export async function linksByIds({ ctx, deps, input }: { ctx: Ctx; deps: LinkSettings; input: string[] }): Promise<Link[]> {
  return (await linkStore.byIds(ctx.db, ctx.workspace.id, input)).map((row) => toLink(row, deps));
}

export type { RedirectRow as RedirectLink, RedirectTest } from './store.js';
export { aliasPath, parseAlias } from './aliases.js';

/** A live link by its short id, for the redirect (expiry is decided by the caller, per request). */
export async function findLinkForRedirect(db: Ctx['db'], shortId: string): Promise<RedirectRow | undefined> {
  return forRedirect(await redirectFieldsByShortId(db, shortId));
}

/** A live link by its key on the short-link host (operations.md §21). */
export async function findLinkByKey(db: Ctx['db'], key: string): Promise<RedirectRow | undefined> {
  return forRedirect(await redirectFieldsByKey(db, key));
}

/** A live link by one of its aliases or its key on a claimed host, while its workspace holds that host active. */
export async function findLinkByAlias(db: Ctx['db'], host: string, path: string): Promise<RedirectRow | undefined> {
  return forRedirect(await redirectFieldsByAlias(db, host, path));
}

function forRedirect(row: RedirectFields | undefined): RedirectRow | undefined {
  if (!row) return undefined;
  return {
    ...row,
    test: row.test && redirectTest(row.test),
    expiresAt: row.expiresAt === null ? null : Number(row.expiresAt),
    url: asStoredNow(row.url),
    ios: row.ios === null ? null : asStoredNow(row.ios),
    android: row.android === null ? null : asStoredNow(row.android),
    expiredUrl: row.expiredUrl === null ? null : asStoredNow(row.expiredUrl),
    geo: row.geo === null ? null : Object.fromEntries(Object.entries(row.geo).map(([country, url]) => [country, asStoredNow(url)])),
  };
}

/** A running test as the redirect splits by it: its variants' buckets of 0–99, its end in epoch ms. */
function redirectTest(t: StoredTest): RedirectTest {
  let sum = 0;
  return { id: t.id, endsAt: Date.parse(t.endsAt), urls: t.variants.map((v) => asStoredNow(v.url)), bounds: t.variants.map((v) => (sum += v.weight)) };
}

/**
 * Links stored before the URL rule may hold `https:host` (a relative Location) or raw
 * non-ASCII: the redirect reads them in the form the rule stores today, once per cache load.
 * What the rule refuses stays as it is; the redirect answers 500 for what it cannot send.
 */
function asStoredNow(url: string): string {
  const verdict = checkHttpsUrl(url);
  return verdict.ok ? verdict.href : url;
}
export { importMatches, destinationKey, type ImportMatches } from './import-matches.js';
export { QR_MARKER, type Link } from './record.js';
export { isShortId } from './short-id.js';
export { isReservedKey, keyOfPath } from './keys.js';
export { completeLinkTest, dueLinkTests, latestLinkTest, type LinkTestRow } from './test-completion.js';
export type { TestMetric, TestVariant } from './test-rules.js';
