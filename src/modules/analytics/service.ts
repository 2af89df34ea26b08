import type { Readable } from 'node:stream';
import { invalidQuery } from '../../core/errors.js';
import { csvStream } from '../../core/csv.js';
import { exactJson } from '../../core/exact-json.js';
import type { ListParams } from '../../core/list-params.js';
import { analyticsConn, type Ctx } from '../../core/context.js';
import { dimensionFilters, type DimensionParam, type GroupBy, type Interval } from './dimensions.js';
import { besideByKey, besideByPlace, earlierPeriod, type Compare } from './compare.js';
import { groupAnalytics, withNames, type GroupQuery, type GroupRecord } from './store-groups.js';
import { clickPage, listClicks, type ClickCursor, type ClickFilter, type ClickRecord } from './store.js';
import { FIRST_INSTANT, periodOf } from './query-period.js';
import { knownZone } from './zones.js';
import { testDays, type TestDayRow } from './store-tests.js';

export type { ClickRecord } from './store.js';
export type { GroupRecord } from './store-groups.js';
export { periodOf } from './query-period.js';
// What the click writer and the conversions' statements add to this module's rollup tables with (store-rollup-writes.ts).
export { addLinkDays, addLinkRevenueDays, afterWrite, FIRST_IN_WORKSPACE, FIRST_ON_LINK, utcDay } from './store-rollup-writes.js';
export { onRollupSlot, ROLLUP_SLOTS } from './rollup-slots.js';
export {
  linkCountRankSql,
  linkCounts,
  linkMoneyOf,
  linkRankSql,
  linkStatsSpan,
  partnerLinkStats,
  type LinkStats,
  type PartnerLinkStats,
  type Span,
} from './link-stats.js';
export { exactSum, type Amount, type Money } from './money.js';
export type { TestDayRow } from './store-tests.js';

/**
 * One A/B test's figures by variant and UTC day (operations.md §20), from raw clicks and events.
 * `primary`: read from the primary database (a decision about to be written), not the replica.
 */
export function testDayFigures({ ctx, input }: { ctx: Ctx; input: { testId: string; primary?: boolean } }): Promise<TestDayRow[]> {
  return testDays(input.primary ? ctx.db : analyticsConn(ctx), ctx.workspace.id, input.testId);
}

/** With one optional parameter per breakdown filter (dimensions.ts). */
export interface AnalyticsQuery extends ListParams, Partial<Record<DimensionParam, string>> {
  linkId?: string;
  partnerId?: string;
  startDate?: string;
  endDate?: string;
  groupBy?: GroupBy;
  interval?: Interval;
  timezone?: string;
  compare?: Compare;
}

/** The query's time zone (its canonical name), undefined for none; a name no runtime knows is a 400. */
function zoneOf(q: AnalyticsQuery): string | undefined {
  if (q.timezone === undefined) return undefined;
  const zone = knownZone(q.timezone);
  if (!zone) throw invalidQuery('timezone', 'time_zone', { value: q.timezone });
  return zone;
}

/** The filter of a query, or 'empty' when its period leaves nothing; the query's 400s are thrown here. */
function filterOf(ctx: Ctx, q: AnalyticsQuery): ClickFilter | 'empty' {
  const period = periodOf(q, zoneOf(q));
  if (q.interval && q.groupBy !== 'timeseries') throw invalidQuery('interval', 'interval_needs_timeseries');
  if (q.compare && !q.groupBy) throw invalidQuery('compare', 'compare_needs_group_by');
  if (q.groupBy === 'variant' && !q.linkId) throw invalidQuery('groupBy', 'variant_needs_link');
  if (q.compare && q.startDate === undefined) throw invalidQuery('startDate', 'compare_needs_start');
  if (period === 'empty') return 'empty';
  return { workspaceId: ctx.workspace.id, clickId: q.id, linkId: q.linkId, partnerId: q.partnerId, filters: dimensionFilters(q), ...period };
}

/** What the analytics reads need beyond the workspace: the short links' origin, to name link rows. */
export interface AnalyticsDeps {
  shortLinkBaseUrl: string;
  /** Where places come from (GET /api/analytics/places). */
  places?: PlaceSources;
}

/** Where region and city come from: the operator's city database (credited as its licence asks) and trusted edge headers. */
export interface PlaceSources {
  cityDatabase: { databaseType: string; description: string | null; attribution: string; attributionUrl: string | null } | null;
  regionHeader: boolean;
  cityHeader: boolean;
}

type Page = { take: number; skip: number; sort: 'asc' | 'desc' };

function groupQueryOf(filter: ClickFilter, q: AnalyticsQuery, zone: string | undefined): Omit<GroupQuery, keyof Page> {
  return {
    workspaceId: filter.workspaceId,
    clickId: filter.clickId,
    linkId: filter.linkId,
    partnerId: filter.partnerId,
    filters: filter.filters,
    span: { from: filter.start?.getTime(), to: filter.end?.getTime(), toInclusive: filter.end ? !filter.endExclusive : undefined },
    by: q.groupBy!,
    interval: q.interval ?? 'day',
    zone: zone ?? 'UTC',
    utc: zone === undefined || zone === 'UTC',
  };
}

async function groups(ctx: Ctx, deps: AnalyticsDeps, filter: ClickFilter, q: AnalyticsQuery, page: Page): Promise<GroupRecord[]> {
  const conn = analyticsConn(ctx);
  const base = groupQueryOf(filter, q, zoneOf(q));
  const named = (found: GroupRecord[]) => withNames(conn, filter.workspaceId, base.by, found, deps.shortLinkBaseUrl);
  if (!q.compare) return named(await groupAnalytics(conn, { ...base, ...page }));
  // The current period as asked (the start is required; no end: up to now), then the earlier one.
  const period = {
    from: base.span.from ?? FIRST_INSTANT,
    to: base.span.to ?? ctx.now.getTime(),
    toInclusive: base.span.to === undefined || base.span.toInclusive === true,
  };
  const earlier = earlierPeriod(period, q.compare, base.zone);
  const before = { ...base, span: earlier };
  if (base.by !== 'timeseries') {
    const current = await named(await groupAnalytics(conn, { ...base, ...page }));
    const keys = current.map((g) => g.key);
    const found = keys.length ? await groupAnalytics(conn, { ...before, keys, take: keys.length, skip: 0, sort: page.sort }) : [];
    return besideByKey(current, found);
  }
  // A series is merged whole (rows with data only: as many as its buckets at most), then paged.
  const whole: Page = { take: Number.MAX_SAFE_INTEGER, skip: 0, sort: 'asc' };
  const current = await groupAnalytics(conn, { ...base, ...whole });
  const found = await groupAnalytics(conn, { ...before, ...whole });
  const merged = besideByPlace(current, found, { zone: base.zone, utc: base.utc, interval: base.interval, from: period.from, earlierFrom: earlier.from });
  return (page.sort === 'asc' ? merged : merged.reverse()).slice(page.skip, page.skip + page.take);
}

/** Click records (operations.md §4), or per-group totals with groupBy. Bots are never counted. */
export async function analytics({ ctx, deps, input: q }: { ctx: Ctx; deps: AnalyticsDeps; input: AnalyticsQuery }): Promise<ClickRecord[] | GroupRecord[]> {
  const filter = filterOf(ctx, q);
  if (filter === 'empty') return [];
  const page = { take: q.take, skip: q.skip, sort: q.sort };
  if (!q.groupBy) return listClicks(analyticsConn(ctx), filter, page);
  return groups(ctx, deps, filter, q, page);
}

/** Rows a CSV export reads from the database at a time. */
export const CSV_PAGE = 5000;

/** The rows a CSV export covers: `take` rows after `skip`, or (no take) every row after `skip`. */
export interface CsvWindow {
  take?: number;
  skip: number;
}

export const CLICK_COLUMNS = [
  'id',
  'linkId',
  'partnerId',
  'createdAt',
  'country',
  'device',
  'browser',
  'os',
  'referrer',
  'referrerUrl',
  'utmSource',
  'utmMedium',
  'utmCampaign',
  'utmTerm',
  'utmContent',
  'trigger',
] as const;
/** A group's columns; the per-currency maps (and previous, with compare) as JSON text: their currencies vary row by row. */
export const GROUP_COLUMNS = ['key', 'clicks', 'leads', 'sales', 'saleAmount', 'revenue', 'refunded', 'visitors'] as const;
const COMPARED_COLUMNS = [...GROUP_COLUMNS, 'previous'] as const;

type GroupCsvRow = Record<(typeof COMPARED_COLUMNS)[number], unknown>;

const csvRow = (g: GroupRecord): GroupCsvRow => ({
  ...g,
  revenue: exactJson(g.revenue),
  refunded: exactJson(g.refunded),
  previous: g.previous && exactJson(g.previous),
});

/** Keyset pages of clicks: each page starts after the last row of the one before. */
async function* clickPages(ctx: Ctx, filter: ClickFilter, sort: 'asc' | 'desc', w: CsvWindow): AsyncGenerator<ClickRecord[]> {
  let left = w.take ?? Number.POSITIVE_INFINITY;
  let after: ClickCursor | undefined;
  while (left > 0) {
    const limit = Math.min(CSV_PAGE, left);
    const page = await clickPage(analyticsConn(ctx), filter, sort, after, limit, after ? 0 : w.skip);
    yield page.records;
    if (page.records.length < limit) return;
    left -= page.records.length;
    after = page.next;
  }
}

/**
 * Pages of groups. A group's totals exist only once every click is counted, so each page is
 * the grouped statement again with its OFFSET (a keyset would not spare that work); what
 * stays bounded is the memory, one page of groups.
 */
async function* groupPages(ctx: Ctx, deps: AnalyticsDeps, filter: ClickFilter, q: AnalyticsQuery, w: CsvWindow): AsyncGenerator<GroupCsvRow[]> {
  let left = w.take ?? Number.POSITIVE_INFINITY;
  let skip = w.skip;
  while (left > 0) {
    const take = Math.min(CSV_PAGE, left);
    const page = await groups(ctx, deps, filter, q, { take, skip, sort: q.sort });
    yield page.map(csvRow);
    if (page.length < take) return;
    left -= page.length;
    skip += page.length;
  }
}

async function* nothing<T>(): AsyncGenerator<T[]> {}

/**
 * The answer of `analytics` as CSV, read from the database a page at a time as the stream is
 * consumed: the rows of `input.query` in `input.window` (without `take`, every matching row).
 * The query's 400s are thrown here, before anything is streamed.
 */
export function analyticsCsv({ ctx, deps, input }: { ctx: Ctx; deps: AnalyticsDeps; input: { query: AnalyticsQuery; window: CsvWindow } }): Readable {
  const { query: q, window: w } = input;
  const filter = filterOf(ctx, q);
  if (q.groupBy)
    return csvStream<GroupCsvRow>(q.compare ? COMPARED_COLUMNS : GROUP_COLUMNS, filter === 'empty' ? nothing() : groupPages(ctx, deps, filter, q, w));
  return csvStream<ClickRecord>(CLICK_COLUMNS, filter === 'empty' ? nothing() : clickPages(ctx, filter, q.sort, w));
}

/** Every click of the workspace, oldest first, in keyset pages (the NDJSON export reads these). */
export function workspaceClickPages({ ctx }: { ctx: Ctx }): AsyncGenerator<ClickRecord[]> {
  return clickPages(ctx, { workspaceId: ctx.workspace.id }, 'asc', { skip: 0 });
}
