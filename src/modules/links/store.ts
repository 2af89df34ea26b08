import { sql, type SQL } from 'drizzle-orm';
import { inList, rows, type Conn } from '../../db/connect.js';
import { withTransaction } from '../../core/transaction.js';
import { afterCursor, cursorColumns, keysetPage, type RowCursor } from '../../db/keyset.js';
import { isoTimestamp, resourceStore, type Column } from '../../db/resource-table.js';
import type { QrDesign } from '../qr/service.js';
import { KEY_SELECT } from './key-store.js';
import type { StoredTest } from './test-rules.js';

/** A link as stored; the service turns it into the API's Link record. */
export interface LinkRow {
  id: string;
  shortId: string;
  url: string;
  title: string | null;
  description: string | null;
  image: string | null;
  utm: Record<string, string> | null;
  expiresAt: string | null;
  expiredUrl: string | null;
  passwordSealed: string | null;
  cloaked: boolean;
  ios: string | null;
  android: string | null;
  geo: Record<string, string> | null;
  collectionId: string;
  tagIds: string[];
  externalId: string | null;
  tenantId: string | null;
  partnerId: string | null;
  /** Absolute URLs (`https://host/path`), in the order given. */
  aliases: string[];
  /** The QR design without its logo (null: the defaults); the logo is a column of its own. */
  qrDesign: Omit<QrDesign, 'logoId'> | null;
  qrLogoId: string | null;
  /** Its key and the key's host ('' for the short-link host); null: on the short-link host by short id only. */
  branded: { host: string; key: string } | null;
  /** The running A/B test (operations.md §20), null when none. */
  test: StoredTest | null;
  createdAt: string;
  updatedAt: string;
}

const LINK_COLUMNS: Column[] = [
  { field: 'shortId', column: 'short_id', type: 'text' },
  { field: 'url', column: 'url', type: 'text' },
  { field: 'title', column: 'title', type: 'text' },
  { field: 'description', column: 'description', type: 'text' },
  { field: 'image', column: 'image', type: 'text' },
  { field: 'utm', column: 'utm', type: 'jsonb', merge: true },
  { field: 'expiresAt', column: 'expires_at', type: 'timestamptz' },
  { field: 'expiredUrl', column: 'expired_url', type: 'text' },
  { field: 'passwordSealed', column: 'password_sealed', type: 'text' },
  { field: 'cloaked', column: 'cloaked', type: 'boolean', insertDefault: 'false' },
  { field: 'ios', column: 'ios', type: 'text' },
  { field: 'android', column: 'android', type: 'text' },
  { field: 'geo', column: 'geo', type: 'jsonb' },
  { field: 'collectionId', column: 'collection_id', type: 'uuid' },
  { field: 'externalId', column: 'external_id', type: 'text' },
  { field: 'tenantId', column: 'tenant_id', type: 'text' },
  { field: 'partnerId', column: 'partner_id', type: 'uuid' },
  { field: 'qrDesign', column: 'qr_design', type: 'jsonb' },
  { field: 'qrLogoId', column: 'qr_logo_id', type: 'uuid' },
  { field: 'test', column: 'test', type: 'jsonb' },
];
const TAG_IDS = `COALESCE((SELECT json_agg(lt.tag_id ORDER BY lt.position) FROM link_tags lt WHERE lt.link_id = t.id), '[]'::json) AS "tagIds"`;

const ALIASES = `COALESCE((SELECT json_agg('https://' || la.host || la.path ORDER BY la.position) FROM link_aliases la WHERE la.link_id = t.id), '[]'::json) AS "aliases"`;

export const linkStore = resourceStore<LinkRow>({
  table: 'links',
  softDelete: true,
  skipConflictsOn: 'short_id',
  columns: LINK_COLUMNS,
  extraSelect: [TAG_IDS, ALIASES, KEY_SELECT],
});

/** The list's selection: the same fields as linkStore's reads. */
const SELECTION = sql.raw(
  [
    't.id',
    ...LINK_COLUMNS.map((c) => `${c.type === 'timestamptz' ? isoTimestamp(`t.${c.column}`) : `t.${c.column}`} AS "${c.field}"`),
    `${isoTimestamp('t.created_at')} AS "createdAt"`,
    `${isoTimestamp('t.updated_at')} AS "updatedAt"`,
    TAG_IDS,
    ALIASES,
    KEY_SELECT,
  ].join(', '),
);

/** What GET /api/links narrows by: `anyOf` matches any of its entries; every other filter must hold too. */
export interface LinkFilters {
  anyOf: { column: 'id' | 'external_id' | 'tenant_id' | 'partner_id'; value: string; type: 'uuid' | 'text' }[];
  collectionId?: string;
  tagId?: string;
  /** Case-insensitive substring of title, url or short id, taken literally (`%` and `_` are no wildcards). */
  search?: string;
  /** The link holding this key on this host ('' the short-link host): a primary-key look-up. */
  key?: { host: string; key: string };
  /** Only links on this host ('' the short-link host: those without a key on a claimed host). */
  host?: string;
}

function filterSql(workspaceId: string, f: LinkFilters): SQL {
  const parts: SQL[] = [sql`t.workspace_id = ${workspaceId} AND t.deleted_at IS NULL`];
  if (f.anyOf.length)
    parts.push(
      sql`(${sql.join(
        f.anyOf.map((a) => sql`t.${sql.raw(a.column)} = ${a.value}::${sql.raw(a.type)}`),
        sql` OR `,
      )})`,
    );
  if (f.collectionId) parts.push(sql`t.collection_id = ${f.collectionId}::uuid`);
  if (f.tagId) parts.push(sql`EXISTS (SELECT 1 FROM link_tags lt WHERE lt.link_id = t.id AND lt.tag_id = ${f.tagId}::uuid)`);
  if (f.key) parts.push(sql`t.id = (SELECT k.link_id FROM link_keys k WHERE k.host = ${f.key.host} AND k.key = ${f.key.key} AND k.freed_at IS NULL)`);
  else if (f.host === '') parts.push(sql`NOT EXISTS (SELECT 1 FROM link_keys k WHERE k.link_id = t.id AND k.freed_at IS NULL AND k.host <> '')`);
  else if (f.host !== undefined) parts.push(sql`EXISTS (SELECT 1 FROM link_keys k WHERE k.link_id = t.id AND k.freed_at IS NULL AND k.host = ${f.host})`);
  if (f.search) {
    // strpos, not ILIKE: the term is plain text (no wildcard to escape) and, measured on PGlite
    // over 100,000 rows, 256 ms against ILIKE's 601 ms.
    const term = sql`lower(${f.search}::text)`;
    parts.push(sql`(strpos(lower(t.title), ${term}) > 0 OR strpos(lower(t.url), ${term}) > 0 OR strpos(lower(t.short_id), ${term}) > 0)`);
  }
  return sql.join(parts, sql` AND `);
}

/**
 * One page of a workspace's links. links_list_idx (workspace_id, created_at, seq WHERE live)
 * serves the order and the limit; the other filters are checked on that workspace's rows as
 * the index walks them (no trigram index on PGlite; measured in the commit that added this).
 */
export function listLinkRows(conn: Conn, workspaceId: string, f: LinkFilters, page: { take: number; skip: number; sort: 'asc' | 'desc' }): Promise<LinkRow[]> {
  const dir = sql.raw(page.sort === 'asc' ? 'ASC' : 'DESC');
  return rows<LinkRow>(
    conn,
    sql`SELECT ${SELECTION} FROM links AS t WHERE ${filterSql(workspaceId, f)}
        ORDER BY t.created_at ${dir}, t.seq ${dir} LIMIT ${page.take} OFFSET ${page.skip}`,
  );
}

/**
 * One page of a workspace's links ordered by a figure: the sum of the k of `rank` (row sources
 * of link_id and k from the analytics module, each joined; a link without a row counts 0),
 * ties by creation then insertion, all in one direction. The page is chosen on ids and keys
 * first, so tags and aliases are read for its links only. JIT off: summing 100,000 links' days
 * looks costly to the planner, and compiling took 260 ms of a 30-day ranking; work_mem so that
 * their grouping stays in memory; no parallel workers: each built its own copy of that grouping
 * (the whole aggregate ran twice, 650,000 days each).
 */
export function listRankedLinkRows(
  conn: Conn,
  workspaceId: string,
  f: LinkFilters,
  page: { take: number; skip: number; sort: 'asc' | 'desc' },
  rank: SQL[],
): Promise<LinkRow[]> {
  const dir = sql.raw(page.sort === 'asc' ? 'ASC' : 'DESC');
  const joins = rank.map((source, i) => sql` LEFT JOIN ${source} ${sql.raw(`r${i}`)} ON ${sql.raw(`r${i}`)}.link_id = t.id`);
  const k = rank.length
    ? sql.join(
        rank.map((_, i) => sql.raw(`COALESCE(r${i}.k, 0)`)),
        sql` + `,
      )
    : sql`0`;
  return withTransaction(conn, async (tx) => {
    await tx.execute(
      sql`SELECT set_config('jit', 'off', true), set_config('work_mem', '64MB', true), set_config('max_parallel_workers_per_gather', '0', true)`,
    );
    return rows<LinkRow>(
      tx,
      sql`WITH p AS (
          SELECT t.id, t.created_at, t.seq, ${k} AS k
          FROM links AS t${sql.join(joins, sql``)}
          WHERE ${filterSql(workspaceId, f)}
          ORDER BY k ${dir}, t.created_at ${dir}, t.seq ${dir} LIMIT ${page.take} OFFSET ${page.skip})
        SELECT ${SELECTION} FROM p JOIN links AS t ON t.id = p.id
        ORDER BY p.k ${dir}, p.created_at ${dir}, p.seq ${dir}`,
    );
  });
}

/**
 * The first pages of a workspace's links by a count, largest first: `rank` (link_id, k > 0, each
 * link once) sorted by k and walked down, each link looked up by id and checked against the
 * filters until the page is full, ties by creation then insertion (an incremental sort on the
 * walk's order). Unlike listRankedLinkRows, the links without a figure are never read, nor are
 * the links below the page: on 99,000 links clicked in 30 days this skipped the hash join of
 * every link and its top-N sort. The lateral LIMIT 1 keeps the lookup a nested loop that
 * preserves the walk's order. */
export function listTopCountedLinkRows(conn: Conn, workspaceId: string, f: LinkFilters, page: { take: number; skip: number }, rank: SQL): Promise<LinkRow[]> {
  return withTransaction(conn, async (tx) => {
    await tx.execute(
      sql`SELECT set_config('jit', 'off', true), set_config('work_mem', '64MB', true), set_config('max_parallel_workers_per_gather', '0', true)`,
    );
    return rows<LinkRow>(
      tx,
      sql`WITH p AS (
          SELECT l.id, l.created_at, l.seq, r.k
          FROM (SELECT link_id, k FROM ${rank} r0 ORDER BY k DESC) r
          CROSS JOIN LATERAL (SELECT t.id, t.created_at, t.seq FROM links AS t WHERE t.id = r.link_id AND ${filterSql(workspaceId, f)} LIMIT 1) l
          ORDER BY r.k DESC, l.created_at DESC, l.seq DESC LIMIT ${page.take} OFFSET ${page.skip})
        SELECT ${SELECTION} FROM p JOIN links AS t ON t.id = p.id
        ORDER BY p.k DESC, p.created_at DESC, p.seq DESC`,
    );
  });
}

/** How many of the filter's links `rank` holds (the links with a figure): where the links without one start in a ranking. */
export async function countRankedLinkRows(conn: Conn, workspaceId: string, f: LinkFilters, rank: SQL): Promise<number> {
  const [row] = await rows<{ n: number }>(
    conn,
    sql`SELECT count(*)::int AS n FROM ${rank} r JOIN links AS t ON t.id = r.link_id WHERE ${filterSql(workspaceId, f)}`,
  );
  return Number(row?.n ?? 0);
}

/**
 * A page of the filter's links that `rank` does not hold (no figure: 0), newest first, ties by
 * insertion: what follows the ranked links when ordering by a count, largest first.
 */
export function listUnrankedLinkRows(conn: Conn, workspaceId: string, f: LinkFilters, page: { take: number; skip: number }, rank: SQL): Promise<LinkRow[]> {
  return rows<LinkRow>(
    conn,
    sql`SELECT ${SELECTION} FROM links AS t WHERE ${filterSql(workspaceId, f)} AND NOT EXISTS (SELECT 1 FROM ${rank} r WHERE r.link_id = t.id)
        ORDER BY t.created_at DESC, t.seq DESC LIMIT ${page.take} OFFSET ${page.skip}`,
  );
}

/** Up to `limit` live links after `after`, oldest first (keyset: the export), and the last one's cursor. */
export async function linkPage(
  conn: Conn,
  workspaceId: string,
  after: RowCursor | undefined,
  limit: number,
): Promise<{ records: LinkRow[]; next?: RowCursor }> {
  const found = await rows<LinkRow & { cursorAt: string; cursorSeq: string | number }>(
    conn,
    sql`SELECT ${SELECTION}${cursorColumns('t')} FROM links AS t WHERE t.workspace_id = ${workspaceId} AND t.deleted_at IS NULL${afterCursor('t', after)}
        ORDER BY t.created_at, t.seq LIMIT ${limit}`,
  );
  return keysetPage<LinkRow>(found);
}

/** How many links the same filters match (X-Total-Count). */
export async function countLinkRows(conn: Conn, workspaceId: string, f: LinkFilters): Promise<number> {
  const [row] = await rows<{ n: number }>(conn, sql`SELECT count(*)::int AS n FROM links AS t WHERE ${filterSql(workspaceId, f)}`);
  return Number(row?.n ?? 0);
}

/**
 * Live links of the workspace by id, as the list reads them, locked until the transaction
 * ends: what a delete's link.deleted event shows is what the delete removed.
 */
export function linkRowsLocked(conn: Conn, workspaceId: string, ids: string[]): Promise<LinkRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return rows<LinkRow>(
    conn,
    sql`SELECT ${SELECTION} FROM links AS t WHERE t.workspace_id = ${workspaceId} AND t.deleted_at IS NULL AND t.id ${inList(ids, 'uuid')}
        FOR UPDATE OF t`,
  );
}

/** Current url and cloaking of links about to be updated (also proves they exist). */
/** What an update merges with: the destinations a cloaked visitor can land on, and cloaked. */
export interface StoredDestinations {
  id: string;
  url: string;
  cloaked: boolean;
  ios: string | null;
  android: string | null;
  geo: Record<string, string> | null;
  /** The running test: its variants are destinations too. */
  test: StoredTest | null;
}

export function linksForUpdate(conn: Conn, workspaceId: string, ids: string[]): Promise<(StoredDestinations & { shortId: string })[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return rows(
    conn,
    sql`SELECT id, short_id AS "shortId", url, cloaked, ios, android, geo, test FROM links WHERE workspace_id = ${workspaceId} AND deleted_at IS NULL
        AND id ${inList(ids, 'uuid')}`,
  );
}

/** Active links of the workspace holding any of these external ids. */
export function externalIdHolders(conn: Conn, workspaceId: string, externalIds: string[]): Promise<{ id: string; externalId: string }[]> {
  if (externalIds.length === 0) return Promise.resolve([]);
  return rows(
    conn,
    // A join, not `IN (subquery)`: never analyzed (PGlite), the table looked one row big and the
    // planner compared every link with every id (4.9 s for 500 ids at 10,000 links, 9 ms so).
    sql`SELECT l.id, l.external_id AS "externalId" FROM links l
        JOIN jsonb_array_elements_text(${JSON.stringify(externalIds)}::jsonb) AS e(v) ON l.external_id = e.v
        WHERE l.workspace_id = ${workspaceId} AND l.deleted_at IS NULL AND l.external_id IS NOT NULL`,
  );
}

/** Frees the external ids of links that this request gives a new one (so ids can be swapped). */
export async function releaseExternalIds(conn: Conn, workspaceId: string, linkIds: string[]): Promise<void> {
  if (linkIds.length === 0) return;
  await conn.execute(
    sql`UPDATE links SET external_id = NULL WHERE workspace_id = ${workspaceId} AND external_id IS NOT NULL AND id ${inList(linkIds, 'uuid')}`,
  );
}

/** Replaces the tag lists of `linkIds` with `assignments`, in two statements whatever the count. */
export async function replaceLinkTags(conn: Conn, linkIds: string[], assignments: { linkId: string; tagIds: string[] }[]): Promise<void> {
  if (linkIds.length) await conn.execute(sql`DELETE FROM link_tags WHERE link_id ${inList(linkIds, 'uuid')}`);
  const flat = assignments.flatMap((a) => a.tagIds.map((tagId, position) => ({ l: a.linkId, t: tagId, p: position })));
  if (flat.length === 0) return;
  await conn.execute(sql`
    INSERT INTO link_tags (link_id, tag_id, position)
    SELECT (e.j->>'l')::uuid, (e.j->>'t')::uuid, (e.j->>'p')::int FROM jsonb_array_elements(${JSON.stringify(flat)}::jsonb) AS e(j)`);
}

const REDIRECT_FIELDS = sql.raw(`l.id, l.workspace_id AS "workspaceId", l.short_id AS "shortId", l.url, l.utm,
  (extract(epoch from l.expires_at) * 1000)::float8 AS "expiresAt", l.expired_url AS "expiredUrl",
  l.password_sealed AS "passwordSealed", l.cloaked, l.ios, l.android, l.geo, l.partner_id AS "partnerId",
  l.title, l.description, l.image, l.test`);

/** The fields the redirect needs, by short id, across workspaces (short ids are global). */
export async function redirectFieldsByShortId(conn: Conn, shortId: string): Promise<RedirectFields | undefined> {
  const [row] = await rows<RedirectFields>(conn, sql`SELECT ${REDIRECT_FIELDS} FROM links l WHERE l.short_id = ${shortId} AND l.deleted_at IS NULL`);
  return row;
}

/** The fields the redirect needs, by a key on the short-link host (keys are global, as short ids are). */
export async function redirectFieldsByKey(conn: Conn, key: string): Promise<RedirectFields | undefined> {
  const [row] = await rows<RedirectFields>(
    conn,
    sql`SELECT ${REDIRECT_FIELDS} FROM link_keys k JOIN links l ON l.id = k.link_id AND l.deleted_at IS NULL
        WHERE k.host = '' AND k.key = ${key} AND k.freed_at IS NULL`,
  );
  return row;
}

/**
 * The fields the redirect needs, by a path of a claimed host: an alias, or a link's key there
 * (one namespace per host, operations.md §21), when the workspace holds the host active.
 * Reads domains (the domains module's table) in the same statement: a host that changed hands
 * never leads to the former holder's links, whatever a cache still believes about the host.
 */
export async function redirectFieldsByAlias(conn: Conn, host: string, path: string): Promise<RedirectFields | undefined> {
  const [row] = await rows<RedirectFields>(
    conn,
    sql`SELECT ${REDIRECT_FIELDS} FROM (
          SELECT a.link_id, a.workspace_id FROM link_aliases a WHERE a.host = ${host} AND a.path = ${path}
          UNION ALL
          SELECT k.link_id, k.workspace_id FROM link_keys k WHERE k.host = ${host} AND k.key = ${path.slice(1)} AND k.freed_at IS NULL) a
        JOIN links l ON l.id = a.link_id AND l.deleted_at IS NULL
        JOIN domains d ON d.host = ${host} AND d.workspace_id = a.workspace_id AND d.status = 'active' AND d.deleted_at IS NULL
        LIMIT 1`,
  );
  return row;
}

/** Which links hold any of these aliases now (server-wide): one statement. */
export function aliasHolders(conn: Conn, aliases: { host: string; path: string }[]): Promise<{ host: string; path: string; linkId: string }[]> {
  if (aliases.length === 0) return Promise.resolve([]);
  return rows(
    conn,
    sql`SELECT a.host, a.path, a.link_id AS "linkId" FROM link_aliases a
        JOIN jsonb_array_elements(${JSON.stringify(aliases.map((x) => ({ h: x.host, p: x.path })))}::jsonb) AS e(j)
          ON a.host = e.j->>'h' AND a.path = e.j->>'p'`,
  );
}

/** Replaces the alias lists of `linkIds` with `assignments`, in two statements whatever the count. */
export async function replaceLinkAliases(
  conn: Conn,
  workspaceId: string,
  linkIds: string[],
  assignments: { linkId: string; aliases: { host: string; path: string }[] }[],
): Promise<void> {
  if (linkIds.length) await conn.execute(sql`DELETE FROM link_aliases WHERE link_id ${inList(linkIds, 'uuid')}`);
  const flat = assignments.flatMap((a) => a.aliases.map((x, position) => ({ l: a.linkId, h: x.host, p: x.path, n: position })));
  if (flat.length === 0) return;
  await conn.execute(sql`
    INSERT INTO link_aliases (host, path, link_id, workspace_id, position)
    SELECT e.j->>'h', e.j->>'p', (e.j->>'l')::uuid, ${workspaceId}::uuid, (e.j->>'n')::int
    FROM jsonb_array_elements(${JSON.stringify(flat)}::jsonb) AS e(j)`);
}

/** What the redirect needs to know about a link (expiresAt in epoch milliseconds). */
export interface RedirectRow {
  id: string;
  workspaceId: string;
  shortId: string;
  url: string;
  utm: Record<string, string> | null;
  expiresAt: number | null;
  expiredUrl: string | null;
  passwordSealed: string | null;
  cloaked: boolean;
  ios: string | null;
  android: string | null;
  geo: Record<string, string> | null;
  partnerId: string | null;
  title: string | null;
  description: string | null;
  image: string | null;
  /** The running A/B test as the redirect splits by it (absent or null: none). */
  test?: RedirectTest | null;
}

/** A link's redirect fields as read: its test as stored. */
export type RedirectFields = Omit<RedirectRow, 'test'> & { test: StoredTest | null };

/**
 * A running test as the redirect uses it: variant i takes the buckets [bounds[i-1], bounds[i])
 * of 0–99 (bounds are the cumulative weights, the last 100); it splits until endsAt (epoch ms).
 */
export interface RedirectTest {
  id: string;
  endsAt: number;
  urls: readonly string[];
  bounds: readonly number[];
}

/** The links of the workspace whose destination and title are one of `pairs` (title null as ''). */
export function linksByDestination(
  conn: Conn,
  workspaceId: string,
  pairs: { url: string; title: string }[],
): Promise<{ id: string; url: string; title: string }[]> {
  if (pairs.length === 0) return Promise.resolve([]);
  // A nested loop over the pairs reaches the hash index on url; the title narrows what it found.
  return rows(
    conn,
    sql`SELECT l.id, l.url, COALESCE(l.title, '') AS title FROM links l
        JOIN jsonb_array_elements(${JSON.stringify(pairs.map((p) => ({ u: p.url, t: p.title })))}::jsonb) AS e(j)
          ON l.url = e.j->>'u' AND COALESCE(l.title, '') = e.j->>'t'
        WHERE l.workspace_id = ${workspaceId} AND l.deleted_at IS NULL`,
  );
}

/** Which workspace's link holds each of these aliases now (server-wide): one statement. */
export function aliasOwners(
  conn: Conn,
  aliases: { host: string; path: string }[],
): Promise<{ host: string; path: string; linkId: string; workspaceId: string }[]> {
  if (aliases.length === 0) return Promise.resolve([]);
  return rows(
    conn,
    sql`SELECT a.host, a.path, a.link_id AS "linkId", a.workspace_id AS "workspaceId" FROM link_aliases a
        JOIN jsonb_array_elements(${JSON.stringify(aliases.map((x) => ({ h: x.host, p: x.path })))}::jsonb) AS e(j)
          ON a.host = e.j->>'h' AND a.path = e.j->>'p'`,
  );
}

/** The workspace's live links holding any of these short ids. */
export function linksByShortId(conn: Conn, workspaceId: string, shortIds: string[]): Promise<{ id: string; shortId: string }[]> {
  if (shortIds.length === 0) return Promise.resolve([]);
  return rows(
    conn,
    sql`SELECT l.id, l.short_id AS "shortId" FROM links l JOIN jsonb_array_elements_text(${JSON.stringify(shortIds)}::jsonb) AS e(v) ON l.short_id = e.v
        WHERE l.workspace_id = ${workspaceId} AND l.deleted_at IS NULL`,
  );
}
