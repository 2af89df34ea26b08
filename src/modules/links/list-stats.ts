import { AppError, invalidQuery } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import { linkCounts, linkMoneyOf, linkStatsSpan, linkStatsSql, type LinkStats } from '../analytics/link-stats.js';
import { CURRENCIES } from '../conversions/currencies.js';
import { toLink, type Link, type LinkSettings } from './record.js';
import type { OrderBy } from './stats-schemas.js';
import { listLinkRows, listRankedLinkRows, type LinkFilters, type LinkRow, type RankKey } from './store.js';

/**
 * GET /api/links?withStats (operations.md §14): a page of links, each with its figures over a
 * range, ordered by creation or by a figure. Ordered by a figure, one statement ranks every
 * link of the filter by the analytics module's per-link source; ordered by creation, the page
 * is read as without stats and only its links' figures are summed.
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
  if (q.withStats && scopes && !scopes.has('analyticsRead')) throw new AppError('missing_scopes', { scopes: 'analyticsRead' }, { missingScopes: ['analyticsRead'] });
  const orderBy = q.orderBy ?? 'createdAt';
  if (orderBy !== 'createdAt' && !q.withStats) throw invalidQuery('orderBy', 'needs_with_stats');
  if (orderBy === 'revenue' && q.currency === undefined) throw invalidQuery('currency', 'revenue_needs_currency');
  if (q.currency === undefined || !q.withStats) return undefined;
  const currency = q.currency.toLowerCase();
  if (!CURRENCIES.has(currency)) throw invalidQuery('currency', 'currency_code', { value: q.currency });
  return currency;
}

const RANK_KEYS: Record<Exclude<OrderBy, 'createdAt'>, RankKey> = { clicks: 'clicks', leads: 'leads', sales: 'sales', revenue: 'amount' };

export async function listLinksWithStats(ctx: Ctx, settings: LinkSettings, filters: LinkFilters, q: StatsQuery): Promise<LinkWithStats[]> {
  const currency = checkStatsQuery(q);
  const span = linkStatsSpan(q, ctx.now);
  const orderBy = q.orderBy ?? 'createdAt';
  let found: LinkRow[];
  let counts: Map<string, { clicks: number; leads: number; sales: number }>;
  if (orderBy === 'createdAt') {
    found = await listLinkRows(ctx.db, ctx.workspace.id, filters, q);
    counts = await linkCounts({ ctx, input: { span, linkIds: found.map((r) => r.id) } });
  } else {
    const stats = linkStatsSql({ ctx, input: { span, currency } });
    const ranked = await listRankedLinkRows(ctx.db, ctx.workspace.id, filters, q, { stats, key: RANK_KEYS[orderBy] });
    found = ranked;
    counts = new Map(ranked.map((r) => [r.id, { clicks: Number(r.statClicks), leads: Number(r.statLeads), sales: Number(r.statSales) }]));
  }
  const money = await linkMoneyOf({ ctx, input: { span, linkIds: found.map((r) => r.id) } });
  return found.map((row) => {
    const { statClicks: _c, statLeads: _l, statSales: _s, ...plain } = row as LinkRow & Partial<Record<'statClicks' | 'statLeads' | 'statSales', string>>;
    const c = counts.get(row.id) ?? { clicks: 0, leads: 0, sales: 0 };
    return { ...toLink(plain, settings), stats: { ...c, ...money.get(row.id)! } };
  });
}
