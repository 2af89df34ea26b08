import { sql, type SQL } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';
import type { ClickRow } from '../redirect/store.js';

export interface ClickFilter {
  workspaceId: string;
  /** One click (and, when grouping, the events attributed to it). */
  clickId?: string;
  linkId?: string;
  partnerId?: string;
  start?: Date;
  end?: Date;
  /** The end bound is excluded (a date-only endDate: before the next day starts). */
  endExclusive?: boolean;
}

export interface Page {
  take: number;
  skip: number;
  sort: 'asc' | 'desc';
}

/** A stored click as the API lists it (the redirect writes them). */
export type ClickRecord = Omit<ClickRow, 'workspaceId' | 'bot'>;

/** Human clicks only: bot clicks are kept but never counted. */
function clickWhere(f: ClickFilter, alias: string): SQL {
  const a = sql.raw(alias);
  const parts = [sql`${a}.workspace_id = ${f.workspaceId}`, sql`NOT ${a}.bot`];
  if (f.clickId) parts.push(sql`${a}.id = ${f.clickId}::uuid`);
  if (f.linkId) parts.push(sql`${a}.link_id = ${f.linkId}::uuid`);
  if (f.partnerId) parts.push(sql`${a}.partner_id = ${f.partnerId}::uuid`);
  if (f.start) parts.push(sql`${a}.created_at >= ${f.start.toISOString()}::timestamptz`);
  if (f.end) parts.push(endBound(a, f));
  return sql.join(parts, sql` AND `);
}

function endBound(a: SQL, f: ClickFilter): SQL {
  return f.endExclusive
    ? sql`${a}.created_at < ${f.end!.toISOString()}::timestamptz`
    : sql`${a}.created_at <= ${f.end!.toISOString()}::timestamptz`;
}

export function listClicks(conn: Conn, f: ClickFilter, p: Page): Promise<ClickRecord[]> {
  const dir = sql.raw(p.sort === 'asc' ? 'ASC' : 'DESC');
  return rows<ClickRecord>(
    conn,
    sql`SELECT c.id, c.link_id AS "linkId", c.partner_id AS "partnerId", ${sql.raw(isoTimestamp('c.created_at'))} AS "createdAt",
          c.country, c.device, c.browser, c.os, c.referrer, c.referrer_url AS "referrerUrl"
        FROM clicks c WHERE ${clickWhere(f, 'c')}
        ORDER BY c.created_at ${dir}, c.seq ${dir} LIMIT ${p.take} OFFSET ${p.skip}`,
  );
}

/** Where a keyset page of clicks starts: after this (created_at, seq), in the page's order. */
export interface ClickCursor {
  /** created_at as the database wrote it as text (exact to the microsecond, with its offset). */
  at: string;
  seq: number;
}

/**
 * A page of clicks after a cursor (keyset, not OFFSET: each page walks the index from where
 * the last one stopped), in the order of listClicks, with the cursor of its last row. The
 * first page may still skip rows (a CSV export's `skip`).
 */
export async function clickPage(
  conn: Conn,
  f: ClickFilter,
  sort: 'asc' | 'desc',
  after: ClickCursor | undefined,
  limit: number,
  skip = 0,
): Promise<{ records: ClickRecord[]; next?: ClickCursor }> {
  const dir = sql.raw(sort === 'asc' ? 'ASC' : 'DESC');
  const from = after
    ? sql` AND (c.created_at, c.seq) ${sql.raw(sort === 'asc' ? '>' : '<')} (${after.at}::timestamptz, ${after.seq}::bigint)`
    : sql``;
  const found = await rows<ClickRecord & { cursorAt: string; seq: string | number }>(
    conn,
    sql`SELECT c.id, c.link_id AS "linkId", c.partner_id AS "partnerId", ${sql.raw(isoTimestamp('c.created_at'))} AS "createdAt",
          c.country, c.device, c.browser, c.os, c.referrer, c.referrer_url AS "referrerUrl",
          c.created_at::text AS "cursorAt", c.seq
        FROM clicks c WHERE ${clickWhere(f, 'c')}${from}
        ORDER BY c.created_at ${dir}, c.seq ${dir} LIMIT ${limit} OFFSET ${skip}`,
  );
  const last = found.at(-1);
  const records = found.map(({ cursorAt: _a, seq: _s, ...r }) => r);
  return { records, next: last && { at: last.cursorAt, seq: Number(last.seq) } };
}

export type GroupBy = 'timeseries' | 'country' | 'device' | 'browser' | 'os' | 'referrer' | 'link';
export type Interval = 'hour' | 'day' | 'month';

export interface GroupRecord {
  key: string;
  clicks: number;
  leads: number;
  sales: number;
  /** Exact: a number while it is a safe integer, a bigint beyond (written as plain JSON digits). */
  saleAmount: number | bigint;
}

/** A sum the database computed exactly (numeric, as text), kept exact. */
function exactSum(text: string): number | bigint {
  const sum = BigInt(text);
  return sum <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(sum) : sum;
}

const CLICK_DIMENSION: Record<Exclude<GroupBy, 'timeseries' | 'link'>, string> = {
  country: 'country',
  device: 'device',
  browser: 'browser',
  os: 'os',
  referrer: 'referrer',
};

/**
 * Clicks, leads, sales and sale amounts per group, in one statement. Events are counted by
 * their own time and grouped by their click's attributes (country, device…) or their link.
 */
export async function groupClicks(conn: Conn, f: ClickFilter, by: GroupBy, interval: Interval, p: Page): Promise<GroupRecord[]> {
  const keyOf = (timeCol: string, alias: string, linkCol: string): SQL => {
    if (by === 'timeseries') {
      // date_bin is about twice as fast as the time-zone-aware date_trunc; months need the latter.
      return sql.raw(
        interval === 'month'
          ? `date_trunc('month', ${timeCol}, 'UTC')`
          : `date_bin('1 ${interval}', ${timeCol}, '2000-01-01 00:00:00+00')`,
      );
    }
    if (by === 'link') return sql.raw(`${linkCol}::text`);
    return sql.raw(`COALESCE(${alias}.${CLICK_DIMENSION[by]}, '(unknown)')`);
  };
  const eventWhere = (e: string) => {
    const a = sql.raw(e);
    const parts = [sql`${a}.workspace_id = ${f.workspaceId}`];
    if (f.clickId) parts.push(sql`${a}.click_id = ${f.clickId}::uuid`);
    if (f.linkId) parts.push(sql`${a}.link_id = ${f.linkId}::uuid`);
    if (f.partnerId) parts.push(sql`c.partner_id = ${f.partnerId}::uuid`);
    if (f.start) parts.push(sql`${a}.created_at >= ${f.start.toISOString()}::timestamptz`);
    if (f.end) parts.push(endBound(a, f));
    return sql.join(parts, sql` AND `);
  };
  // Events only need their click when grouping by a click attribute or filtering by partner.
  const needsClick = (by !== 'timeseries' && by !== 'link') || Boolean(f.partnerId);
  const clickJoin = (e: string) => (needsClick ? sql.raw(`LEFT JOIN clicks c ON c.id = ${e}.click_id`) : sql``);
  // Buckets stay timestamps until the end: formatting a million rows would cost more than counting them.
  const outerKey =
    by === 'timeseries' ? sql.raw(`to_char(u.key AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`) : sql.raw('u.key');
  const order =
    by === 'timeseries' ? sql.raw(`u.key ${p.sort === 'asc' ? 'ASC' : 'DESC'}`) : sql.raw(`clicks DESC, sales DESC, leads DESC, u.key ASC`);
  // Amounts are summed as numeric (exact at any size), never as float8.
  const groups = await rows<Omit<GroupRecord, 'saleAmount'> & { saleAmount: string }>(
    conn,
    sql`SELECT ${outerKey} AS key, sum(clicks)::float8 AS clicks, sum(leads)::float8 AS leads, sum(sales)::float8 AS sales,
          sum(amount)::numeric::text AS "saleAmount"
        FROM (
          SELECT ${keyOf('c.created_at', 'c', 'c.link_id')} AS key, count(*) AS clicks, 0 AS leads, 0 AS sales, 0 AS amount
            FROM clicks c WHERE ${clickWhere(f, 'c')} GROUP BY 1
          UNION ALL
          SELECT ${keyOf('l.created_at', 'c', 'l.link_id')}, 0, count(*), 0, 0
            FROM lead_events l ${clickJoin('l')} WHERE ${eventWhere('l')} GROUP BY 1
          UNION ALL
          SELECT ${keyOf('s.created_at', 'c', 's.link_id')}, 0, 0, count(*), sum(s.amount)
            FROM sale_events s ${clickJoin('s')} WHERE ${eventWhere('s')} GROUP BY 1
        ) u
        GROUP BY u.key ORDER BY ${order} LIMIT ${p.take} OFFSET ${p.skip}`,
  );
  return groups.map((g) => ({ ...g, saleAmount: exactSum(g.saleAmount) }));
}
