import { sql, type SQL } from 'drizzle-orm';
import { inList, rows, type Conn } from '../../db/connect.js';
import type { MoneyEntry } from './money.js';
import { splitSpan, type Span } from './periods.js';

/*
 * Each link's clicks, leads, sales and money over a span (GET /api/links?withStats, operations.md
 * §14): the whole UTC days from link_daily_stats and link_daily_revenue (migration 0020), keyed
 * by workspace and day; the rest of the span (less than a day at either end, whatever the time
 * zone) from the raw clicks and events, as GET /api/analytics reads the edges of its rollups.
 * The clicks and events tables of other modules are read in the same statement.
 */

const at = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;
const day = (ms: number) => sql`${new Date(ms).toISOString().slice(0, 10)}::date`;

/** The whole days of the span, and its raw pieces. */
function pieces(span: Span | 'empty'): { days: { from?: number; to?: number }[]; raw: Span[] } {
  if (span === 'empty') return { days: [], raw: [] };
  const split = splitSpan(span, ['d']);
  return { days: split.rollups, raw: split.raw };
}

function dayRange(d: { from?: number; to?: number }): SQL {
  const column = sql`d.day`;
  const parts = [sql`true`];
  if (d.from !== undefined) parts.push(sql`${column} >= ${day(d.from)}`);
  if (d.to !== undefined) parts.push(sql`${column} < ${day(d.to)}`);
  return sql.join(parts, sql` AND `);
}

function rawRange(s: Span, column: SQL): SQL {
  const parts = [sql`true`];
  if (s.from !== undefined) parts.push(sql`${column} >= ${at(s.from)}`);
  if (s.to !== undefined) parts.push(s.toInclusive ? sql`${column} <= ${at(s.to)}` : sql`${column} < ${at(s.to)}`);
  return sql.join(parts, sql` AND `);
}

/**
 * A row source (link_id, clicks, leads, sales) of some links with anything in the span (a page:
 * found by link_daily_stats_link_idx and clicks_link_idx); `links` the set, as `IN (…)` of their ids.
 */
export function pageCounts(workspaceId: string, span: Span | 'empty', links: SQL): SQL {
  const mine = sql`workspace_id = ${workspaceId}::uuid AND link_id ${links}`;
  const { days, raw } = pieces(span);
  const parts: SQL[] = days.map((d) => sql`SELECT link_id, clicks, leads, sales FROM link_daily_stats d WHERE ${mine} AND ${dayRange(d)}`);
  for (const s of raw) {
    parts.push(sql`SELECT link_id, count(*), 0, 0 FROM clicks WHERE ${mine} AND NOT bot AND ${rawRange(s, sql`created_at`)} GROUP BY 1`);
    parts.push(sql`SELECT link_id, 0, count(*), 0 FROM lead_events WHERE ${mine} AND ${rawRange(s, sql`created_at`)} GROUP BY 1`);
    parts.push(sql`SELECT link_id, 0, 0, count(*) FROM sale_events WHERE ${mine} AND ${rawRange(s, sql`created_at`)} GROUP BY 1`);
  }
  if (parts.length === 0) parts.push(sql`SELECT NULL::uuid, 0::bigint, 0::bigint, 0::bigint WHERE false`);
  return sql`(SELECT u.link_id, sum(u.clicks) AS clicks, sum(u.leads) AS leads, sum(u.sales) AS sales
    FROM (${sql.join(parts, sql` UNION ALL `)}) AS u(link_id, clicks, leads, sales) GROUP BY u.link_id)`;
}

export interface LinkCounts {
  clicks: number;
  leads: number;
  sales: number;
}

/** The counts of these links of the workspace over the span, by link id; a link with nothing in it is absent. */
export async function linkCountRows(conn: Conn, workspaceId: string, span: Span | 'empty', linkIds: string[]): Promise<Map<string, LinkCounts>> {
  if (linkIds.length === 0) return new Map();
  const found = await rows<{ id: string; clicks: string; leads: string; sales: string }>(
    conn,
    sql`SELECT s.link_id AS id, s.clicks::text AS clicks, s.leads::text AS leads, s.sales::text AS sales
      FROM ${pageCounts(workspaceId, span, inList(linkIds, 'uuid'))} s`,
  );
  return new Map(found.map((r) => [r.id, { clicks: Number(r.clicks), leads: Number(r.leads), sales: Number(r.sales) }]));
}

/** What a ranking sums: a count, or the net revenue in one currency. */
export type RankKey = { key: 'clicks' | 'leads' | 'sales' } | { key: 'amount'; currency: string };

/**
 * Row sources (link_id, k), each grouped by link, whose k add up to the one figure a list is
 * ordered by: the whole days, then the raw edges. Only that figure is read; the page's other
 * figures are read for its links alone. Each is grouped on its own table, so the planner knows
 * how many links it holds (grouped over a UNION it guessed 200 of 99,000, and sorted 240,000
 * rows in parallel workers instead of hashing them: 1.1 s of a 1.8 s ranking); the caller joins
 * each to the links and adds them up.
 */
export function linkRankSources(workspaceId: string, span: Span | 'empty', rank: RankKey): SQL[] {
  const ws = sql`${workspaceId}::uuid`;
  const { days, raw } = pieces(span);
  const parts: SQL[] = [];
  const column = sql.raw(rank.key);
  for (const d of days) {
    parts.push(
      rank.key === 'amount'
        ? sql`SELECT d.link_id, sum(d.amount) AS k FROM link_daily_revenue d WHERE d.workspace_id = ${ws} AND ${dayRange(d)} AND d.currency = ${rank.currency} GROUP BY 1`
        : sql`SELECT d.link_id, ${intSum(sql`d.${column}`)} AS k FROM link_daily_stats d WHERE d.workspace_id = ${ws} AND ${dayRange(d)} AND d.${column} <> 0 GROUP BY 1`,
    );
  }
  for (const s of raw) {
    if (rank.key === 'clicks')
      parts.push(
        sql`SELECT c.link_id, count(*) AS k FROM clicks c WHERE c.workspace_id = ${ws} AND NOT c.bot AND ${rawRange(s, sql`c.created_at`)} GROUP BY 1`,
      );
    if (rank.key === 'leads')
      parts.push(sql`SELECT e.link_id, count(*) AS k FROM lead_events e WHERE e.workspace_id = ${ws} AND ${rawRange(s, sql`e.created_at`)} GROUP BY 1`);
    if (rank.key === 'sales')
      parts.push(sql`SELECT e.link_id, count(*) AS k FROM sale_events e WHERE e.workspace_id = ${ws} AND ${rawRange(s, sql`e.created_at`)} GROUP BY 1`);
    if (rank.key === 'amount')
      parts.push(sql`SELECT e.link_id, sum(e.amount - e.refunded_amount) AS k FROM sale_events e
        WHERE e.workspace_id = ${ws} AND e.currency = ${rank.currency} AND ${rawRange(s, sql`e.created_at`)} GROUP BY 1`);
  }
  return parts.map((p) => sql`(${p})`);
}

/**
 * A sum of one link-day count: added as int4 (sum(int4) keeps an int8 total; sum(int8) keeps a
 * numeric one, which took a third of a 30-day ranking's grouping). A day of one link holds far
 * fewer than 2^31 events.
 */
const intSum = (column: SQL) => sql`sum(${column}::integer)`;

/**
 * One row source (link_id, k > 0) of a count over the span: the whole days grouped by link,
 * fully joined to the raw edges grouped by link (few rows), so that the caller can walk it in
 * order of k. Each link appears once; a link with nothing in the span is absent.
 */
export function linkCountRankSource(workspaceId: string, span: Span | 'empty', key: 'clicks' | 'leads' | 'sales'): SQL | undefined {
  const ws = sql`${workspaceId}::uuid`;
  const { days, raw } = pieces(span);
  const column = sql.raw(key);
  const table = sql.raw({ clicks: 'clicks', leads: 'lead_events', sales: 'sale_events' }[key]);
  const notBot = key === 'clicks' ? sql` AND NOT e.bot` : sql``;
  const daily =
    days.length > 0 &&
    sql`SELECT d.link_id, ${intSum(sql`d.${column}`)} AS k FROM link_daily_stats d
      WHERE d.workspace_id = ${ws} AND (${sql.join(days.map(dayRange), sql` OR `)}) AND d.${column} <> 0 GROUP BY 1`;
  const edges =
    raw.length > 0 &&
    sql`SELECT e.link_id, count(*) AS k FROM ${table} e
      WHERE e.workspace_id = ${ws}${notBot} AND (${sql.join(
        raw.map((s) => rawRange(s, sql`e.created_at`)),
        sql` OR `,
      )}) GROUP BY 1`;
  if (daily && edges)
    return sql`(SELECT coalesce(a.link_id, b.link_id) AS link_id, coalesce(a.k, 0) + coalesce(b.k, 0) AS k FROM (${daily}) a FULL JOIN (${edges}) b ON b.link_id = a.link_id)`;
  if (daily) return sql`(${daily})`;
  if (edges) return sql`(${edges})`;
  return undefined;
}

/**
 * A row source (link_id, currency, amount, refunded) of the money of some links over the span, to
 * add up; `links` the set, as `IN (…)` of their ids. Undefined when the span is empty.
 */
export function pageMoney(workspaceId: string, span: Span | 'empty', links: SQL): SQL | undefined {
  const { days, raw } = pieces(span);
  if (days.length + raw.length === 0) return undefined;
  const ws = sql`${workspaceId}::uuid`;
  const parts: SQL[] = [
    ...days.map(
      (d) => sql`SELECT d.link_id, d.currency, d.amount, d.refunded FROM link_daily_revenue d
      WHERE d.link_id ${links} AND d.workspace_id = ${ws} AND ${dayRange(d)}`,
    ),
    ...raw.map(
      (s) => sql`SELECT e.link_id, e.currency COLLATE "C", e.amount - e.refunded_amount, e.refunded_amount FROM sale_events e
      WHERE e.workspace_id = ${ws} AND e.link_id ${links} AND ${rawRange(s, sql`e.created_at`)}`,
    ),
  ];
  return sql`(${sql.join(parts, sql` UNION ALL `)}) AS u(link_id, currency, amount, refunded)`;
}

/** The money of these links of the workspace over the span: per link, [currency, net, refunded] entries to add up. */
export async function linkMoney(conn: Conn, workspaceId: string, span: Span | 'empty', linkIds: string[]): Promise<Map<string, MoneyEntry[]>> {
  const out = new Map<string, MoneyEntry[]>();
  const source = linkIds.length === 0 ? undefined : pageMoney(workspaceId, span, inList(linkIds, 'uuid'));
  if (!source) return out;
  const found = await rows<{ linkId: string; currency: string; net: string; refunded: string }>(
    conn,
    sql`SELECT u.link_id AS "linkId", u.currency, sum(u.amount)::text AS net, sum(u.refunded)::text AS refunded
      FROM ${source} GROUP BY 1, 2`,
  );
  for (const r of found) {
    const list = out.get(r.linkId) ?? [];
    list.push([r.currency, r.net, r.refunded]);
    out.set(r.linkId, list);
  }
  return out;
}
