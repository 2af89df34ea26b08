import { sql } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import { withTransaction } from '../../core/transaction.js';
import { CONTINENT_OF } from './continents.js';
import type { GroupBy } from './dimensions.js';
import { addMoney, exactBig, exactSum, moneyOf, type Amount, type Money, type MoneyEntry } from './money.js';
import { hotColumn, sources, type GroupQuery, type HotColumn } from './store-sources.js';
import { withOffset } from './zones.js';

export type { GroupQuery } from './store-sources.js';

/*
 * Grouped totals of GET /api/analytics: rollups (analytics_rollups, written with each click and
 * event by the redirect and conversions stores, and analytics_revenue_rollups, their sales'
 * money per currency) for whole periods, raw clicks and events for the edges (store-sources.ts).
 * The clicks, events, links and tags tables of other modules are read in the same statement,
 * not through their services: one statement per answer.
 */

export interface GroupRecord {
  key: string;
  clicks: number;
  /** Visitor-days: each visitor counted in the group of their first click of each UTC day (in the workspace, or on the link). */
  visitors: number;
  leads: number;
  sales: number;
  /** All currencies added (for one-currency workspaces), net of refunds; exact (money.ts). */
  saleAmount: Amount;
  /** Per currency (lower-case ISO 4217): sale amounts net of refunds, and the refunded amounts. */
  revenue: Money;
  refunded: Money;
  /** With compare: the same group in the earlier period (a timeseries: the bucket at the same place). */
  previous?: PreviousFigures;
  /** Rows keyed by a collection, tag or partner id: its name. */
  name?: string | null;
  /** Rows keyed by a link id: its short URL and title. */
  shortUrl?: string;
  title?: string | null;
}

export interface PreviousFigures {
  clicks: number;
  leads: number;
  sales: number;
  revenue: Money;
}

/**
 * The sums of an answer's row over the sources `u`. The money of each source row with a currency
 * goes out as [currency, net, refunded] entries, added up per currency by `recordOf`: a second
 * grouping by key and currency in SQL cost a few ms more on breakdowns of thousands of values
 * (referrer_url: 25 → 33 ms at 1 M clicks), where these entries are a handful per group.
 */
const SUMS = sql.raw(`sum(u.clicks)::float8 AS clicks, sum(u.visitors)::float8 AS visitors, sum(u.leads)::float8 AS leads, sum(u.sales)::float8 AS sales,
  sum(u.amount)::numeric::text AS "saleAmount",
  jsonb_agg(jsonb_build_array(u.currency, u.revenue::numeric::text, u.refunded::numeric::text)) FILTER (WHERE u.currency IS NOT NULL) AS money`);

/** A row as the database answers it: sums as exact text. */
type Row = Omit<GroupRecord, 'saleAmount' | 'revenue' | 'refunded'> & { saleAmount: string; money: MoneyEntry[] | null };

function recordOf({ money, ...g }: Row): GroupRecord {
  const { revenue, refunded } = moneyOf(money ?? []);
  return { ...g, saleAmount: exactSum(g.saleAmount), revenue, refunded };
}

/**
 * Clicks, leads, sales and sale amounts per group, in one statement: whole periods from the
 * rollups, the partial periods at the edges from raw clicks and events. Events count by their
 * own time and by their click's dimensions (copied onto them when recorded).
 */
export function groupAnalytics(conn: Conn, q: GroupQuery): Promise<GroupRecord[]> {
  // Rollup rows are always read by key (a workspace, a link or a partner): the planner,
  // misjudging how few rows a scope, dimension and level select among millions, chose to scan
  // the whole table (measured: 495 ms instead of ~20 ms for a workspace's hourly series), and
  // the same misjudged cost made PostgreSQL compile the statement with JIT: at 10 M clicks a
  // workspace's hourly series read 2,169 rows in under 1 ms and spent 425 ms compiling (197 ms p50).
  // The same guess (106,907 rows for the 98 of a workspace's days) started two parallel workers
  // for a daily series: 53 ms, of which 50 starting them, against 3 ms without (1 M clicks).
  return withTransaction(conn, async (tx) => {
    await tx.execute(
      sql`SELECT set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true), set_config('max_parallel_workers_per_gather', '0', true)`,
    );
    const hotFrom = q.linkId ? await hotLinkFrom(tx, q.workspaceId, q.linkId, hotColumn(q.by)) : undefined;
    return groupIn(tx, { ...q, hotFrom });
  });
}

/** Where a link's dimensions (or its referrer URLs) start in rollups, null when they are not kept. */
async function hotLinkFrom(conn: Conn, workspaceId: string, linkId: string, column: HotColumn): Promise<number | null> {
  const [found] = await rows<{ from: string | null }>(
    conn,
    sql`SELECT (extract(epoch FROM ${sql.raw(column)}) * 1000)::bigint::text AS "from" FROM analytics_hot_links WHERE link_id = ${linkId}::uuid AND workspace_id = ${workspaceId}::uuid`,
  );
  return found?.from ? Number(found.from) : null;
}

async function groupIn(conn: Conn, q: GroupQuery): Promise<GroupRecord[]> {
  const zone = sql`${q.zone}::text`;
  const bucket = (col: string) => sql`date_trunc(${q.interval}, ${sql.raw(col)}, ${zone})`;
  const u = sources(q, bucket);
  if (!u) return [];
  const page = sql`LIMIT ${q.take} OFFSET ${q.skip}`;
  const byCount = sql.raw('clicks DESC, sales DESC, leads DESC, key ASC');
  const keys = q.keys && sql`(SELECT value FROM jsonb_array_elements_text(${JSON.stringify(q.keys)}::jsonb))`;
  if (q.by === 'timeseries') {
    const dir = sql.raw(q.sort === 'asc' ? 'ASC' : 'DESC');
    const buckets = await rows<Row & { offset: number }>(
      conn,
      sql`SELECT to_char(u.key AT TIME ZONE ${zone}, 'YYYY-MM-DD"T"HH24:MI:SS') AS key,
            extract(epoch FROM (u.key AT TIME ZONE ${zone}) - (u.key AT TIME ZONE 'UTC'))::int AS "offset", ${SUMS}
          FROM (${u}) u GROUP BY u.key ORDER BY u.key ${dir} ${page}`,
    );
    return buckets.map(({ offset, ...b }) => recordOf({ ...b, key: withOffset(b.key, offset, q.utc) }));
  }
  if (q.by === 'collection' || q.by === 'tag') {
    const join = q.by === 'collection' ? sql`JOIN links l ON l.id = u.key::uuid` : sql`JOIN link_tags l ON l.link_id = u.key::uuid`;
    const col = sql.raw(q.by === 'collection' ? 'l.collection_id::text' : 'l.tag_id::text');
    const only = keys ? sql`WHERE ${col} IN ${keys}` : sql``;
    return (await rows<Row>(conn, sql`SELECT ${col} AS key, ${SUMS} FROM (${u}) u ${join} ${only} GROUP BY 1 ORDER BY ${byCount} ${page}`)).map(recordOf);
  }
  if (q.by === 'continent') {
    const countries = (await rows<Row>(conn, sql`SELECT u.key, ${SUMS} FROM (${u}) u GROUP BY 1`)).map(recordOf);
    return byContinent(countries)
      .filter((g) => !q.keys || q.keys.includes(g.key))
      .slice(q.skip, q.skip + q.take);
  }
  const only = keys ? sql`WHERE u.key IN ${keys}` : sql``;
  return (await rows<Row>(conn, sql`SELECT u.key, ${SUMS} FROM (${u}) u ${only} GROUP BY 1 ORDER BY ${byCount} ${page}`)).map(recordOf);
}

/** Country totals summed by continent (unknown countries under '(unknown)'), ordered as the others. */
function byContinent(countries: GroupRecord[]): GroupRecord[] {
  const sums = new Map<string, GroupRecord>();
  for (const c of countries) {
    const key = CONTINENT_OF[c.key] ?? '(unknown)';
    const s = sums.get(key);
    sums.set(
      key,
      s
        ? {
            key,
            clicks: s.clicks + c.clicks,
            visitors: s.visitors + c.visitors,
            leads: s.leads + c.leads,
            sales: s.sales + c.sales,
            saleAmount: exactBig(BigInt(s.saleAmount) + BigInt(c.saleAmount)),
            revenue: addMoney(s.revenue, c.revenue),
            refunded: addMoney(s.refunded, c.refunded),
          }
        : { ...c, key },
    );
  }
  return [...sums.values()].sort((a, b) => b.clicks - a.clicks || b.sales - a.sales || b.leads - a.leads || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Names for rows keyed by an id, so a client can show them without a second call: a link's
 * short URL and title, a collection's, tag's or partner's name. One query for the page: it
 * reads the links, collections, tags or partners table directly rather than through their services.
 */
export async function withNames(conn: Conn, workspaceId: string, by: GroupBy, groups: GroupRecord[], shortLinkBaseUrl: string): Promise<GroupRecord[]> {
  const table = { link: 'links', collection: 'collections', tag: 'tags', partner: 'partners' }[by as string];
  if (!table) return groups;
  const ids = groups.map((g) => g.key).filter((k) => /^[0-9a-f-]{36}$/.test(k));
  if (ids.length === 0) return groups.map((g) => ({ ...g, name: null }));
  const cols = by === 'link' ? sql.raw('id::text AS id, short_id AS "shortId", title') : sql.raw('id::text AS id, name');
  const found = await rows<{ id: string; shortId?: string; title?: string | null; name?: string }>(
    conn,
    sql`SELECT ${cols} FROM ${sql.raw(table)} WHERE workspace_id = ${workspaceId}::uuid
        AND id IN (SELECT value::uuid FROM jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`,
  );
  const byId = new Map(found.map((f) => [f.id, f]));
  return groups.map((g) => {
    const f = byId.get(g.key);
    if (by === 'link') return f ? { ...g, shortUrl: `${shortLinkBaseUrl}/${f.shortId}`, title: f.title ?? null } : g;
    return { ...g, name: f?.name ?? null };
  });
}
