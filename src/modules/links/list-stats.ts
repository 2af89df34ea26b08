import { AppError, invalidQuery } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import type { SQL } from 'drizzle-orm';
import { linkCountRankSql, linkCounts, linkMoneyOf, linkRankSql, linkStatsSpan, type LinkStats } from '../analytics/service.js';
import { CURRENCIES } from '../conversions/service.js';
import { toLink, type Link, type LinkSettings } from './record.js';
import type { OrderBy } from './stats-schemas.js';
import {
  countRankedLinkRows,
  listLinkRows,
  listRankedLinkRows,
  listTopCountedLinkRows,
  listUnrankedLinkRows,
  type LinkFilters,
  type LinkRow,
} from './store.js';

/**
 * GET /api/links?withStats (operations.md §14): a page of links, each with its figures over a
 * range, ordered by creation or by a figure. Ordered by a figure, one statement ranks every
 * link of the filter by the analytics module's per-link sums of that figure; then, either way,
 * the page's own links' figures are summed.
 */

export interface StatsQuery {
  withStats?: boolean;
  startDate?: string;
  endDate?: string;
  timezone?: string;
  orderBy?: OrderBy;
  currency?: string;
  take: number;
  skip: number;
  sort: 'asc' | 'desc';
}

export type LinkWithStats = Link & { stats: LinkStats };

/**
 * The query's 403 and 400s, with or without stats: withStats needs analyticsRead, a figure to
 * order by needs withStats, revenue a currency. The currency in lower case.
 */
export function checkStatsQuery(q: StatsQuery, scopes?: ReadonlySet<string>): string | undefined {
  if (q.withStats && scopes && !scopes.has('analyticsRead'))
    throw new AppError('missing_scopes', { scopes: 'analyticsRead' }, { missingScopes: ['analyticsRead'] });
  const orderBy = q.orderBy ?? 'createdAt';
  if (orderBy !== 'createdAt' && !q.withStats) throw invalidQuery('orderBy', 'needs_with_stats');
  if (orderBy === 'revenue' && q.currency === undefined) throw invalidQuery('currency', 'revenue_needs_currency');
  if (q.currency === undefined || !q.withStats) return undefined;
  const currency = q.currency.toLowerCase();
  if (!CURRENCIES.has(currency)) throw invalidQuery('currency', 'currency_code', { value: q.currency });
  return currency;
}

export async function listLinksWithStats(ctx: Ctx, settings: LinkSettings, filters: LinkFilters, q: StatsQuery): Promise<LinkWithStats[]> {
  const currency = checkStatsQuery(q);
  const span = linkStatsSpan(q, ctx.now);
  const orderBy = q.orderBy ?? 'createdAt';
  const found =
    orderBy === 'createdAt'
      ? await listLinkRows(ctx.db, ctx.workspace.id, filters, q)
      : orderBy !== 'revenue' && q.sort === 'desc'
        ? await largestCountsFirst(ctx, filters, q, linkCountRankSql({ ctx, input: { span, key: orderBy } }))
        : await listRankedLinkRows(ctx.db, ctx.workspace.id, filters, q, linkRankSql({ ctx, input: { span, key: orderBy, currency } }));
  const linkIds = found.map((r) => r.id);
  const [counts, money] = await Promise.all([linkCounts({ ctx, input: { span, linkIds } }), linkMoneyOf({ ctx, input: { span, linkIds } })]);
  return found.map((row) => ({ ...toLink(row, settings), stats: { ...(counts.get(row.id) ?? { clicks: 0, leads: 0, sales: 0 }), ...money.get(row.id)! } }));
}

/**
 * A page by a count, largest first: the links with a figure walked down from the largest, then,
 * once they run out, those without one (0) newest first — the order listRankedLinkRows gives,
 * without ranking every link of the workspace for the first pages.
 */
async function largestCountsFirst(ctx: Ctx, filters: LinkFilters, q: StatsQuery, rank: SQL | undefined): Promise<LinkRow[]> {
  const page = { take: q.take, skip: q.skip };
  if (!rank) return listLinkRows(ctx.db, ctx.workspace.id, filters, { ...page, sort: 'desc' });
  const ranked = await listTopCountedLinkRows(ctx.db, ctx.workspace.id, filters, page, rank);
  if (ranked.length === q.take) return ranked;
  // The ranked links end on this page (or before it): how many there are says where the rest start.
  const rankedCount = ranked.length > 0 ? q.skip + ranked.length : await countRankedLinkRows(ctx.db, ctx.workspace.id, filters, rank);
  const rest = await listUnrankedLinkRows(ctx.db, ctx.workspace.id, filters, { take: q.take - ranked.length, skip: Math.max(0, q.skip - rankedCount) }, rank);
  return [...ranked, ...rest];
}
