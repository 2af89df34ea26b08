import type { SQL } from 'drizzle-orm';
import { invalidQuery } from '../../core/errors.js';
import type { Ctx } from '../../core/context.js';
import { moneyOf, type Money } from './money.js';
import type { Span } from './periods.js';
import { linkCountRankSource, linkCountRows, linkMoney, linkRankSources, type LinkCounts, type RankKey } from './store-link-stats.js';
import { partnerCountRows, partnerMoney } from './store-partner-stats.js';
import { periodOf } from './query-period.js';
import { knownZone } from './zones.js';

/**
 * Each link's performance over a range, for GET /api/links?withStats (operations.md §14), and
 * each partner's, their links' added up, for GET /api/partners?withStats (§18): the
 * range read as GET /api/analytics reads startDate, endDate and timezone; the figures from the
 * per-link daily totals and the raw edges (store-link-stats.ts). Read from the primary, not the
 * analytics replica: the list is ranked there (with the links themselves, as fresh as the plain
 * list), and a page's figures must be the ones it was ordered by.
 */

/** The range when startDate is not given: the 30 days before its end (now by default). */
export const DEFAULT_STATS_DAYS = 30;

export type { LinkCounts } from './store-link-stats.js';
export type { Span } from './periods.js';

export interface LinkStats extends LinkCounts {
  revenue: Money;
  refunded: Money;
}

/** The range of a query, or 'empty' when it leaves nothing; its 400s thrown here. */
export function linkStatsSpan(q: { startDate?: string; endDate?: string; timezone?: string }, now: Date): Span | 'empty' {
  let zone: string | undefined;
  if (q.timezone !== undefined) {
    zone = knownZone(q.timezone);
    if (!zone) throw invalidQuery('timezone', 'time_zone', { value: q.timezone });
  }
  const period = periodOf(q, zone);
  if (period === 'empty') return 'empty';
  const to = period.end?.getTime();
  const from = q.startDate === undefined ? (to ?? now.getTime()) - DEFAULT_STATS_DAYS * 86_400_000 : period.start?.getTime();
  return { from, to, toInclusive: period.end ? !period.endExclusive : undefined };
}

/**
 * Row sources (link_id, k) of the workspace's links with anything in the span, whose k add up
 * to the figure to order by (a count, or the net revenue in `currency`), for the links module
 * to join each and add.
 */
export function linkRankSql({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { span: Span | 'empty'; key: 'clicks' | 'leads' | 'sales' | 'revenue'; currency?: string };
}): SQL[] {
  const rank: RankKey = input.key === 'revenue' ? { key: 'amount', currency: input.currency! } : { key: input.key };
  return linkRankSources(ctx.workspace.id, input.span, rank);
}

/**
 * The one row source (link_id, k > 0) of a count over the span, each link once, for the links
 * module to walk from the largest k down; undefined when the span is empty.
 */
export function linkCountRankSql({ ctx, input }: { ctx: Ctx; input: { span: Span | 'empty'; key: 'clicks' | 'leads' | 'sales' } }): SQL | undefined {
  return linkCountRankSource(ctx.workspace.id, input.span, input.key);
}

/** The counts of these links (a page in creation order), by link id; a link with nothing in the span is absent. */
export function linkCounts({ ctx, input }: { ctx: Ctx; input: { span: Span | 'empty'; linkIds: string[] } }): Promise<Map<string, LinkCounts>> {
  return linkCountRows(ctx.db, ctx.workspace.id, input.span, input.linkIds);
}

/** The money of these links over the span, per currency (never added across currencies), by link id; every link present. */
export async function linkMoneyOf({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { span: Span | 'empty'; linkIds: string[] };
}): Promise<Map<string, { revenue: Money; refunded: Money }>> {
  const entries = await linkMoney(ctx.db, ctx.workspace.id, input.span, input.linkIds);
  return new Map(input.linkIds.map((id) => [id, moneyOf(entries.get(id) ?? [])]));
}

/** A partner's figures over a span: their live links' added up (revenue net of refunds, per currency). */
export interface PartnerLinkStats extends LinkCounts {
  revenue: Money;
}

/**
 * The figures of these partners over the span, each the sum of their live links' (those GET
 * /api/links?partnerId lists), by partner id; every partner present. Two statements, whatever
 * the number of partners.
 */
export async function partnerLinkStats({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { span: Span | 'empty'; partnerIds: string[] };
}): Promise<Map<string, PartnerLinkStats>> {
  const [counts, money] = await Promise.all([
    partnerCountRows(ctx.db, ctx.workspace.id, input.span, input.partnerIds),
    partnerMoney(ctx.db, ctx.workspace.id, input.span, input.partnerIds),
  ]);
  return new Map(
    input.partnerIds.map((id) => [id, { ...(counts.get(id) ?? { clicks: 0, leads: 0, sales: 0 }), revenue: moneyOf(money.get(id) ?? []).revenue }]),
  );
}
