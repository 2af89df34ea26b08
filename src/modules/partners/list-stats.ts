import type { Ctx } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import type { ListParams } from '../../core/list-params.js';
import { linkStatsSpan, partnerLinkStats, type Amount, type Money, type Span } from '../analytics/service.js';

/**
 * GET /api/partners?withStats (operations.md §18 "Partners in a program"): a page of partners,
 * each with the figures of their links over a range (the analytics module's, as GET
 * /api/links?withStats reads them) and, for callers with programsRead, their earnings (the
 * commissions module's, through the reader it provides). A fixed number of statements per page.
 */

export interface PartnerListQuery extends ListParams {
  withStats?: boolean;
  startDate?: string;
  endDate?: string;
  timezone?: string;
}

/** One currency's commissions of a partner by state, minor units. */
export interface PartnerEarnings {
  pending: Amount;
  held: Amount;
  payable: Amount;
  paid: Amount;
}

export interface PartnerStats {
  clicks: number;
  leads: number;
  sales: number;
  revenue: Money;
  /** Per currency; only for callers with programsRead. */
  earnings?: Record<string, PartnerEarnings>;
}

/**
 * Reads the earnings of these partners from the commissions created in the span, per currency,
 * by partner id (a partner with none may be absent): the commissions module provides it in its
 * setUp, since it depends on partners and not the other way round.
 */
export type EarningsReader = (op: { ctx: Ctx; input: { partnerIds: string[]; span: Span } }) => Promise<Map<string, Record<string, PartnerEarnings>>>;

let earningsReader: EarningsReader | undefined;
export function providePartnerEarnings(reader: EarningsReader): void {
  earningsReader = reader;
}

/** withStats needs analyticsRead besides the list's partnersRead (403 naming it). */
export function checkStatsScopes(q: PartnerListQuery, scopes: ReadonlySet<string>): void {
  if (q.withStats && !scopes.has('analyticsRead')) throw new AppError('missing_scopes', { scopes: 'analyticsRead' }, { missingScopes: ['analyticsRead'] });
}

/** The range of a query (its 400s), read before the partners so that a bad one costs nothing. */
export const statsSpan = (q: PartnerListQuery, now: Date): Span | 'empty' => linkStatsSpan(q, now);

/** The page's partners with their stats: two statements for the figures, one for the earnings. */
export async function withPartnerStats<P extends { id: string }>(
  ctx: Ctx,
  partners: P[],
  span: Span | 'empty',
  scopes: ReadonlySet<string>,
): Promise<(P & { stats: PartnerStats })[]> {
  const partnerIds = partners.map((p) => p.id);
  const showEarnings = scopes.has('programsRead');
  if (showEarnings && !earningsReader) throw new Error('no module provides partner earnings (the commissions module registers it)');
  const [figures, earnings] = await Promise.all([
    partnerLinkStats({ ctx, input: { span, partnerIds } }),
    showEarnings && span !== 'empty' && partnerIds.length > 0
      ? earningsReader!({ ctx, input: { partnerIds, span } })
      : new Map<string, Record<string, PartnerEarnings>>(),
  ]);
  return partners.map((p) => ({ ...p, stats: { ...figures.get(p.id)!, ...(showEarnings ? { earnings: earnings.get(p.id) ?? {} } : {}) } }));
}
