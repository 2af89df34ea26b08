import { sql, type SQL } from 'drizzle-orm';
import type { DimensionFilter, GroupBy, Interval } from './dimensions.js';
import { columnValue, rawFilter, rollupFilter } from './store-filters.js';
import { splitSpan, type Level, type RollupSpan, type Span } from './periods.js';
import { zoneAlignment, type Alignment } from './zones.js';
import { FIRST_IN_WORKSPACE, FIRST_ON_LINK } from './store-rollup-writes.js';

/*
 * The sources of a grouped answer of GET /api/analytics as one SQL union: the rollup rows of the
 * whole periods a span holds, and the raw clicks and events of its edges and of what rollups do
 * not keep. The clicks and events tables of other modules are read in the same statement.
 */

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
  /** Only these groups (keys as answered); not for timeseries. */
  keys?: string[];
}

type Stored =
  | 'country'
  | 'region'
  | 'city'
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
  | 'partner'
  | 'variant';

/** The rollup dimension (and raw column) a grouping is computed from. */
const STORED: Record<Exclude<GroupBy, 'timeseries'>, Stored> = {
  country: 'country',
  continent: 'country',
  region: 'region',
  city: 'city',
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
  variant: 'variant',
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

/** Where a hot link's rows of a dimension start: its referrer URLs (migration 0012) and places (0031) joined the rollups later. */
export type HotColumn = 'dims_from' | 'urls_from' | 'places_from';
export const hotColumn = (dim: string): HotColumn => (dim === 'referrer_url' ? 'urls_from' : dim === 'region' || dim === 'city' ? 'places_from' : 'dims_from');

/** The levels a scope's rows keep a dimension at ('' the total), as analytics_keys() writes them. */
function keptLevels(whole: boolean, dim: string): Level[] {
  if (whole) return dim === '' ? ['d', 'h', 'q'] : ['m', 'd', 'h'];
  if (dim === '') return ['d', 'h'];
  return dim === 'referrer_url' || dim === 'region' || dim === 'city' ? ['m', 'd'] : ['d'];
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
  // A link's A/B test variants (operations.md §20) are kept on raw clicks and events only.
  if (stored === 'variant') return { scope, dim: '', rollupKey: sql`r.value`, levels: [] };
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

/** The part of a span from `lo` (inclusive) to `hi` (exclusive), undefined when nothing is left. */
function clip(span: Span, lo: number | undefined, hi: number | undefined): Span | undefined {
  const from = lo === undefined ? span.from : span.from === undefined ? lo : Math.max(span.from, lo);
  const cut = hi !== undefined && (span.to === undefined || hi <= span.to);
  const to = cut ? hi : span.to;
  const toInclusive = cut ? false : span.toInclusive;
  if (from !== undefined && to !== undefined && (from > to || (from === to && !toInclusive))) return undefined;
  return { from, to, toInclusive };
}

/** The visitor_flags bit a scope counts: the workspace's first clicks of the day, or (a link's or a partner's reads, from link rows) the link's. */
const visitorBit = (q: GroupQuery): number => (q.linkId || q.partnerId ? FIRST_ON_LINK : FIRST_IN_WORKSPACE);

/**
 * Every source of the answer as (key, currency, clicks, leads, sales, amount, revenue, refunded, visitors)
 * rows: rollups, then raw edges; undefined: nothing to read. `amount` is saleAmount's part (all
 * currencies); `currency` is null but in the rows of revenue and refunded, which carry nothing else
 * when read from rollups. One link's dimensions are in rollups from its hot day on
 * (`q.hotFrom`): before it the span is read raw, after it from rollups and raw edges. Many
 * links (a partner's) are gated row by row against analytics_hot_links.
 */
export function sources(q: GroupQuery, bucket: (col: string) => SQL): SQL | undefined {
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

function partsFor(
  q: GroupQuery,
  plan: Plan,
  span: Span,
  levels: Level[],
  hotGated: HotColumn | false | undefined,
  bucket: (col: string) => SQL,
): SQL | undefined {
  const whole = splitSpan(span, levels);
  const rollups = whole.rollups.filter((s) => s.from === undefined || s.from <= LAST_INSTANT);
  const parts: SQL[] = [];
  const gated = hotGated && rollups.length > 0;
  const gate = sql.raw(`h.${hotGated || 'dims_from'}`);
  if (rollups.length) {
    // The money per currency has the same keys in its own table: the same conditions select it.
    const rowsOf = (table: string) => sql`FROM ${sql.raw(table)} r ${gated ? sql`JOIN analytics_hot_links h ON h.link_id = r.scope_id` : sql``}
      WHERE ${plan.scope} AND r.dim = ${plan.dim}${plan.match ? sql` AND ${plan.match}` : sql``} AND (${rollupSpans(rollups)})${gated ? sql` AND r.bucket >= ${gate}` : sql``}`;
    parts.push(sql`SELECT ${plan.rollupKey} AS key, NULL::text AS currency, sum(r.clicks) AS clicks, sum(r.leads) AS leads, sum(r.sales) AS sales,
      sum(r.amount) AS amount, 0 AS revenue, 0 AS refunded, sum(r.visitors) AS visitors ${rowsOf('analytics_rollups')} GROUP BY 1`);
    parts.push(sql`SELECT ${plan.rollupKey}, r.currency, 0, 0, 0, 0, sum(r.amount), sum(r.refunded), 0 ${rowsOf('analytics_revenue_rollups')} GROUP BY 1, 2`);
  }
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
    parts.push(sql`SELECT ${key('c')} AS key, NULL::text AS currency, count(*) AS clicks, 0 AS leads, 0 AS sales, 0 AS amount, 0 AS revenue, 0 AS refunded,
      count(*) FILTER (WHERE c.visitor_flags & ${sql.raw(String(visitorBit(q)))} <> 0) AS visitors
      FROM ${from('clicks', 'c')} WHERE ${where('c', 'id')} AND NOT c.bot GROUP BY 1`);
    parts.push(sql`SELECT ${key('l')}, NULL, 0, count(*), 0, 0, 0, 0, 0 FROM ${from('lead_events', 'l')} WHERE ${where('l', 'click_id')} GROUP BY 1`);
    parts.push(sql`SELECT ${key('s')}, s.currency, 0, 0, count(*), sum(s.amount - s.refunded_amount), sum(s.amount - s.refunded_amount), sum(s.refunded_amount), 0
      FROM ${from('sale_events', 's')} WHERE ${where('s', 'click_id')} GROUP BY 1, 2`);
  }
  return parts.length ? sql.join(parts, sql` UNION ALL `) : undefined;
}
