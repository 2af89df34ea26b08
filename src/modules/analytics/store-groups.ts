import { sql, type SQL } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import { withTransaction } from '../../core/transaction.js';
import { CONTINENT_OF } from './continents.js';
import type { DimensionFilter, GroupBy, Interval } from './dimensions.js';
import { columnValue, rawFilter, rollupFilter } from './store-filters.js';
import { splitSpan, type Level, type RollupSpan, type Span } from './periods.js';
import { withOffset, zoneAlignment, type Alignment } from './zones.js';

/*
 * Grouped totals of GET /api/analytics: rollups (analytics_rollups, written with each click and
 * event by the redirect and conversions stores) for whole periods, raw clicks and events for the
 * edges. The clicks, events, links and tags tables of other modules are read in the same
 * statement, not through their services: one statement per answer.
 */

export interface GroupRecord {
  key: string;
  clicks: number;
  leads: number;
  sales: number;
  /** Exact: a number while it is a safe integer, a bigint beyond (written as plain JSON digits). */
  saleAmount: number | bigint;
  /** Rows keyed by a collection, tag or partner id: its name. */
  name?: string | null;
  /** Rows keyed by a link id: its short URL and title. */
  shortUrl?: string;
  title?: string | null;
}

export interface GroupQuery {
  workspaceId: string;
  /** One click: answered from raw rows alone. */
  clickId?: string;
  linkId?: string;
  partnerId?: string;
  /** Only the clicks (and their events) with these breakdown values. */
  filters?: DimensionFilter[];
  span: Span;
  by: GroupBy;
  interval: Interval;
  /** With linkId: where that link's rows of the grouped dimension start in rollups (null: not kept). */
  hotFrom?: number | null;
  /** IANA zone of the time buckets; `utc` when none was asked for (keys end in Z). */
  zone: string;
  utc: boolean;
  take: number;
  skip: number;
  sort: 'asc' | 'desc';
}

type Stored =
  | 'country'
  | 'device'
  | 'browser'
  | 'os'
  | 'referrer'
  | 'referrer_url'
  | 'utm_source'
  | 'utm_medium'
  | 'utm_campaign'
  | 'utm_term'
  | 'utm_content'
  | 'trigger'
  | 'link'
  | 'partner';

/** The rollup dimension (and raw column) a grouping is computed from. */
const STORED: Record<Exclude<GroupBy, 'timeseries'>, Stored> = {
  country: 'country',
  continent: 'country',
  device: 'device',
  browser: 'browser',
  os: 'os',
  referrer: 'referrer',
  referrer_url: 'referrer_url',
  utm_source: 'utm_source',
  utm_medium: 'utm_medium',
  utm_campaign: 'utm_campaign',
  utm_term: 'utm_term',
  utm_content: 'utm_content',
  trigger: 'trigger',
  link: 'link',
  collection: 'link',
  tag: 'link',
  partner: 'partner',
};

const ZERO = sql.raw(`'00000000-0000-0000-0000-000000000000'::uuid`);
const at = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;

/** Levels of the whole-period rows a timeseries may use in a zone: periods that nest in its buckets. */
function timeseriesLevels(interval: Interval, alignment: Alignment): Level[] {
  if (alignment === 'none') return [];
  if (alignment === 'quarter') return ['q'];
  if (interval === 'hour' || alignment === 'hour') return ['h', 'q'];
  return ['d', 'h', 'q'];
}

interface Plan {
  /** Rollup rows of the scope. */
  scope: SQL;
  dim: string;
  /** The group key of a rollup row `r`. */
  rollupKey: SQL;
  levels: Level[];
  /** Link rows of a dimension: kept only from a link's hot days on, from this column of analytics_hot_links. */
  hotGated?: HotColumn;
  /** The rollup rows' value condition of a dimension filter. */
  match?: SQL;
}

/** Where a hot link's rows of a dimension start: its referrer URLs joined the rollups later (migration 0012). */
type HotColumn = 'dims_from' | 'urls_from';
const hotColumn = (dim: string): HotColumn => (dim === 'referrer_url' ? 'urls_from' : 'dims_from');

/** The levels a scope's rows keep a dimension at ('' the total), as analytics_keys() writes them. */
function keptLevels(whole: boolean, dim: string): Level[] {
  if (whole) return dim === '' ? ['d', 'h', 'q'] : ['m', 'd', 'h'];
  if (dim === '') return ['d', 'h'];
  return dim === 'referrer_url' ? ['m', 'd'] : ['d'];
}

function planOf(q: GroupQuery, bucket: (col: string) => SQL): Plan {
  const filters = q.filters ?? [];
  if (filters.length) return filteredPlan(q, filters, bucket);
  const ws = sql`r.workspace_id = ${q.workspaceId}::uuid`;
  const scope = q.linkId
    ? sql`${ws} AND r.scope_id = ${q.linkId}::uuid${q.partnerId ? sql` AND r.partner_id = ${q.partnerId}::uuid` : sql``}`
    : q.partnerId
      ? sql`${ws} AND r.partner_id = ${q.partnerId}::uuid AND r.partner_id <> ${ZERO}`
      : sql`${ws} AND r.scope_id = ${q.workspaceId}::uuid`;
  const whole = !q.linkId && !q.partnerId;
  // One click is read raw; otherwise the levels wanted, as far as the scope keeps them.
  const levels = (dim: string, wanted: Level[]) => (q.clickId ? [] : wanted.filter((l) => keptLevels(whole, dim).includes(l)));
  if (q.by === 'timeseries') {
    const alignment = zoneAlignment(q.zone, q.span.from, q.span.to);
    // A link's rows keep no quarter hours: in a quarter-hour zone its series is read raw.
    return { scope, dim: '', rollupKey: bucket('r.bucket'), levels: levels('', timeseriesLevels(q.interval, alignment)) };
  }
  const stored = STORED[q.by];
  if (whole) return { scope, dim: stored, rollupKey: sql`r.value`, levels: levels(stored, ['m', 'd', 'h']) };
  // Link rows: links and partners from the totals of each link row.
  if (stored === 'link') return { scope, dim: '', rollupKey: sql`r.scope_id::text`, levels: levels('', ['d', 'h']) };
  if (stored === 'partner')
    return { scope, dim: '', rollupKey: sql`CASE WHEN r.partner_id = ${ZERO} THEN '(none)' ELSE r.partner_id::text END`, levels: levels('', ['d', 'h']) };
  // Month rows start mid-month for a link that turned hot then: only one link's reads, which
  // begin at its hot day, can tell whole months; rows gated link by link read days.
  const wanted: Level[] = q.linkId ? ['m', 'd'] : ['d'];
  return { scope, dim: stored, rollupKey: sql`r.value`, levels: levels(stored, wanted), hotGated: hotColumn(stored) };
}

/**
 * A filtered view. Rollups keep one dimension per row, so they answer a workspace's series or
 * totals under one filter (that dimension's rows with the value), and a breakdown of the
 * filter's own dimension; any other combination is read from raw clicks and events.
 */
function filteredPlan(q: GroupQuery, filters: DimensionFilter[], bucket: (col: string) => SQL): Plan {
  const ws = sql`r.workspace_id = ${q.workspaceId}::uuid AND r.scope_id = ${q.workspaceId}::uuid`;
  const raw: Plan = { scope: ws, dim: '', rollupKey: sql`r.value`, levels: [] };
  const one = filters.length === 1 ? rollupFilter(filters[0]!) : undefined;
  if (!one || q.linkId || q.partnerId || q.clickId) return raw;
  const levels = (wanted: Level[]) => wanted.filter((l) => keptLevels(true, one.dim).includes(l));
  if (q.by === 'timeseries') {
    const alignment = zoneAlignment(q.zone, q.span.from, q.span.to);
    return { scope: ws, dim: one.dim, rollupKey: bucket('r.bucket'), levels: levels(timeseriesLevels(q.interval, alignment)), match: one.match };
  }
  if (STORED[q.by] === one.dim) return { scope: ws, dim: one.dim, rollupKey: sql`r.value`, levels: levels(['m', 'd', 'h']), match: one.match };
  return raw;
}

/** The last instant a timestamp can be sent as (year 9999); a period rounded up past it holds nothing. */
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

function rollupSpans(spans: RollupSpan[]): SQL {
  const one = (s: RollupSpan) => {
    const parts = [sql`r.level = ${s.level}`];
    if (s.from !== undefined) parts.push(sql`r.bucket >= ${at(s.from)}`);
    if (s.to !== undefined && s.to <= LAST_INSTANT) parts.push(sql`r.bucket < ${at(s.to)}`);
    return sql`(${sql.join(parts, sql` AND `)})`;
  };
  return sql.join(spans.map(one), sql` OR `);
}

function rawSpans(spans: Span[], a: string): SQL {
  const col = sql.raw(`${a}.created_at`);
  const one = (s: Span) => {
    const parts: SQL[] = [];
    if (s.from !== undefined) parts.push(sql`${col} >= ${at(s.from)}`);
    if (s.to !== undefined && s.to <= LAST_INSTANT) parts.push(s.toInclusive ? sql`${col} <= ${at(s.to)}` : sql`${col} < ${at(s.to)}`);
    return parts.length ? sql`(${sql.join(parts, sql` AND `)})` : sql`true`;
  };
  return sql.join(spans.map(one), sql` OR `);
}

/** Every source of the answer as (key, clicks, leads, sales, amount) rows: rollups, then raw edges; undefined: nothing to read. */
/** The part of a span from `lo` (inclusive) to `hi` (exclusive), undefined when nothing is left. */
function clip(span: Span, lo: number | undefined, hi: number | undefined): Span | undefined {
  const from = lo === undefined ? span.from : span.from === undefined ? lo : Math.max(span.from, lo);
  const cut = hi !== undefined && (span.to === undefined || hi <= span.to);
  const to = cut ? hi : span.to;
  const toInclusive = cut ? false : span.toInclusive;
  if (from !== undefined && to !== undefined && (from > to || (from === to && !toInclusive))) return undefined;
  return { from, to, toInclusive };
}

/**
 * Every source of the answer as (key, clicks, leads, sales, amount) rows: rollups, then raw
 * edges; undefined: nothing to read. One link's dimensions are in rollups from its hot day on
 * (`q.hotFrom`): before it the span is read raw, after it from rollups and raw edges. Many
 * links (a partner's) are gated row by row against analytics_hot_links.
 */
function sources(q: GroupQuery, bucket: (col: string) => SQL): SQL | undefined {
  const plan = planOf(q, bucket);
  if (plan.hotGated && q.linkId) {
    const hot = q.hotFrom ?? undefined;
    const before = hot === undefined ? q.span : clip(q.span, undefined, hot);
    const after = hot === undefined ? undefined : clip(q.span, hot, undefined);
    const parts = [before && partsFor(q, plan, before, [], false, bucket), after && partsFor(q, plan, after, plan.levels, false, bucket)];
    const found = parts.filter((p): p is SQL => p !== undefined);
    return found.length ? sql.join(found, sql` UNION ALL `) : undefined;
  }
  return partsFor(q, plan, q.span, plan.levels, plan.hotGated, bucket);
}

function partsFor(q: GroupQuery, plan: Plan, span: Span, levels: Level[], hotGated: HotColumn | false | undefined, bucket: (col: string) => SQL): SQL | undefined {
  const whole = splitSpan(span, levels);
  const rollups = whole.rollups.filter((s) => s.from === undefined || s.from <= LAST_INSTANT);
  const parts: SQL[] = [];
  const gated = hotGated && rollups.length > 0;
  const gate = sql.raw(`h.${hotGated || 'dims_from'}`);
  if (rollups.length)
    parts.push(sql`SELECT ${plan.rollupKey} AS key, sum(r.clicks) AS clicks, sum(r.leads) AS leads, sum(r.sales) AS sales, sum(r.amount) AS amount
      FROM analytics_rollups r ${gated ? sql`JOIN analytics_hot_links h ON h.link_id = r.scope_id` : sql``}
      WHERE ${plan.scope} AND r.dim = ${plan.dim}${plan.match ? sql` AND ${plan.match}` : sql``} AND (${rollupSpans(rollups)})${gated ? sql` AND r.bucket >= ${gate}` : sql``} GROUP BY 1`);
  if (whole.raw.length || gated) {
    const key = (a: string) => (q.by === 'timeseries' ? bucket(`${a}.created_at`) : columnValue(STORED[q.by], a));
    const when = (a: string) => {
      const edges = whole.raw.length ? [sql`(${rawSpans(whole.raw, a)})`] : [];
      if (!gated) return edges[0]!;
      const days = rollups.map((r) => ({ from: r.from, to: r.to !== undefined && r.to <= LAST_INSTANT ? r.to : undefined }));
      return sql.join([...edges, sql`((${rawSpans(days, a)}) AND (${gate} IS NULL OR ${sql.raw(a)}.created_at < ${gate}))`], sql` OR `);
    };
    const from = (table: string, a: string) =>
      gated ? sql`${sql.raw(table)} ${sql.raw(a)} LEFT JOIN analytics_hot_links h ON h.link_id = ${sql.raw(a)}.link_id` : sql`${sql.raw(table)} ${sql.raw(a)}`;
    const where = (a: string, click: string) => {
      const p = [sql`${sql.raw(a)}.workspace_id = ${q.workspaceId}::uuid`];
      if (q.clickId) p.push(sql`${sql.raw(a)}.${sql.raw(click)} = ${q.clickId}::uuid`);
      if (q.linkId) p.push(sql`${sql.raw(a)}.link_id = ${q.linkId}::uuid`);
      if (q.partnerId) p.push(sql`${sql.raw(a)}.partner_id = ${q.partnerId}::uuid`);
      for (const f of q.filters ?? []) p.push(rawFilter(f, a, q.workspaceId));
      p.push(sql`(${when(a)})`);
      return sql.join(p, sql` AND `);
    };
    parts.push(sql`SELECT ${key('c')} AS key, count(*) AS clicks, 0 AS leads, 0 AS sales, 0 AS amount FROM ${from('clicks', 'c')} WHERE ${where('c', 'id')} AND NOT c.bot GROUP BY 1`);
    parts.push(sql`SELECT ${key('l')}, 0, count(*), 0, 0 FROM ${from('lead_events', 'l')} WHERE ${where('l', 'click_id')} GROUP BY 1`);
    parts.push(sql`SELECT ${key('s')}, 0, 0, count(*), sum(s.amount - s.refunded_amount) FROM ${from('sale_events', 's')} WHERE ${where('s', 'click_id')} GROUP BY 1`);
  }
  return parts.length ? sql.join(parts, sql` UNION ALL `) : undefined;
}

/** A sum the database computed exactly (numeric, as text), kept exact. */
function exactSum(text: string): number | bigint {
  const sum = BigInt(text);
  return sum <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(sum) : sum;
}

const SUMS = sql.raw(`sum(u.clicks)::float8 AS clicks, sum(u.leads)::float8 AS leads, sum(u.sales)::float8 AS sales, sum(u.amount)::numeric::text AS "saleAmount"`);

type Row = Omit<GroupRecord, 'saleAmount'> & { saleAmount: string };

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
  return withTransaction(conn, async (tx) => {
    await tx.execute(sql`SELECT set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)`);
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
  let found: Row[];
  if (q.by === 'timeseries') {
    const dir = sql.raw(q.sort === 'asc' ? 'ASC' : 'DESC');
    const buckets = await rows<Row & { offset: number }>(
      conn,
      sql`SELECT to_char(u.key AT TIME ZONE ${zone}, 'YYYY-MM-DD"T"HH24:MI:SS') AS key,
            extract(epoch FROM (u.key AT TIME ZONE ${zone}) - (u.key AT TIME ZONE 'UTC'))::int AS "offset", ${SUMS}
          FROM (${u}) u GROUP BY u.key ORDER BY u.key ${dir} ${page}`,
    );
    found = buckets.map(({ offset, ...b }) => ({ ...b, key: withOffset(b.key, offset, q.utc) }));
  } else if (q.by === 'collection' || q.by === 'tag') {
    const join = q.by === 'collection' ? sql`JOIN links l ON l.id = u.key::uuid` : sql`JOIN link_tags l ON l.link_id = u.key::uuid`;
    const col = sql.raw(q.by === 'collection' ? 'l.collection_id' : 'l.tag_id');
    found = await rows<Row>(conn, sql`SELECT ${col}::text AS key, ${SUMS} FROM (${u}) u ${join} GROUP BY 1 ORDER BY ${byCount} ${page}`);
  } else if (q.by === 'continent') {
    const countries = await rows<Row>(conn, sql`SELECT u.key, ${SUMS} FROM (${u}) u GROUP BY 1`);
    found = byContinent(countries).slice(q.skip, q.skip + q.take);
  } else {
    found = await rows<Row>(conn, sql`SELECT u.key, ${SUMS} FROM (${u}) u GROUP BY 1 ORDER BY ${byCount} ${page}`);
  }
  return found.map((g) => ({ ...g, saleAmount: exactSum(g.saleAmount) }));
}

/** Country totals summed by continent (unknown countries under '(unknown)'), ordered as the others. */
function byContinent(countries: Row[]): Row[] {
  const sums = new Map<string, { clicks: number; leads: number; sales: number; amount: bigint }>();
  for (const c of countries) {
    const key = CONTINENT_OF[c.key] ?? '(unknown)';
    const s = sums.get(key) ?? { clicks: 0, leads: 0, sales: 0, amount: 0n };
    s.clicks += c.clicks;
    s.leads += c.leads;
    s.sales += c.sales;
    s.amount += BigInt(c.saleAmount);
    sums.set(key, s);
  }
  return [...sums]
    .map(([key, s]) => ({ key, clicks: s.clicks, leads: s.leads, sales: s.sales, saleAmount: s.amount.toString() }))
    .sort((a, b) => b.clicks - a.clicks || b.sales - a.sales || b.leads - a.leads || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
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
