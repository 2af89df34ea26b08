/**
 * What a partner reads in their portal (operations.md §18 "Partner portal"). Every read is of the
 * workspace of the program the person partners in (the context's) and of their partner id (the
 * seat's): nothing here takes a partner id from the request.
 */
import type { Ctx } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import type { Sealer } from '../../core/sealed.js';
import { analytics, periodOf, type AnalyticsDeps, type Amount, type GroupRecord } from '../analytics/service.js';
import { partnerCommissions, partnerEarnings, partnerEarningsSeries, type CommissionRow } from '../commissions/service.js';
import { customerCountries } from '../conversions/service.js';
import { customersByIds } from '../customers/service.js';
import { listLinksWithTotal, type LinkDeps } from '../links/service.js';
import { maskEmail, ownPayoutDetailsOf, partners } from '../partners/service.js';
import { partnerPayouts } from '../payouts/service.js';
import { findProgram, type ProgramRow } from '../program/service.js';

/** The program a signed-in person acts in as a partner: the workspace is the context's. */
export interface Seat {
  partnerId: string;
  programId: string;
  userId: string;
  sessionId?: string;
}

/** What the reads below need of a seat: whose figures, in which program (the embedded referral page reads them too, with no person). */
export type SeatView = Pick<Seat, 'partnerId' | 'programId'>;

type Page = { take: number; skip: number; sort: 'asc' | 'desc' };

/** The seat's program (404 as an unknown program once it is gone). */
export async function seatProgram(ctx: Ctx, seat: SeatView): Promise<ProgramRow> {
  const program = await findProgram({ ctx });
  if (!program || program.id !== seat.programId) throw notFound('program', seat.programId);
  return program;
}

async function seatPartner(ctx: Ctx, seat: SeatView) {
  const [partner] = await partners.byIds({ ctx, input: [seat.partnerId] });
  if (!partner) throw notFound('program', seat.programId);
  return partner;
}

/** GET /api/partner: who they are in the program, its rules for their links, their earnings of all time. */
export async function portalSummary({ ctx, input: seat }: { ctx: Ctx; input: SeatView }) {
  const [partner, program, earnings] = await Promise.all([
    seatPartner(ctx, seat),
    seatProgram(ctx, seat),
    partnerEarnings({ ctx, input: { partnerIds: [seat.partnerId], span: {} } }),
  ]);
  return {
    partner: { id: partner.id, name: partner.name, status: partner.status, referralKey: partner.referralKey },
    program: {
      id: program.id,
      name: program.name,
      currency: program.currency,
      linkPrefixes: program.linkPrefixes,
      maxPartnerLinks: program.maxPartnerLinks,
      termsUrl: program.termsUrl ?? null,
    },
    earnings: earnings.get(seat.partnerId) ?? {},
  };
}

const STATS_SCOPES: ReadonlySet<string> = new Set(['analyticsRead']);

/** GET /api/partner/links: their links, newest first, with all-time counts. */
export async function portalLinks({ ctx, deps, input }: { ctx: Ctx; deps: LinkDeps; input: SeatView & Page }) {
  const [partner, { links, total }] = await Promise.all([
    seatPartner(ctx, input),
    listLinksWithTotal({
      ctx,
      deps,
      input: { partnerId: input.partnerId, take: input.take, skip: input.skip, sort: input.sort, withStats: true, scopes: STATS_SCOPES },
    }),
  ]);
  const shown = links.map((l) => {
    const stats = (l as { stats?: { clicks: number; leads: number; sales: number } }).stats;
    return {
      id: l.id,
      url: l.url,
      shortUrl: l.shortUrl,
      qrCode: l.qrCode,
      title: l.title,
      utm: l.utm,
      default: l.id === partner.defaultLinkId,
      stats: { clicks: stats?.clicks ?? 0, leads: stats?.leads ?? 0, sales: stats?.sales ?? 0 },
      createdAt: l.createdAt,
    };
  });
  return { links: shown, total: total ?? shown.length };
}

export interface PortalAnalyticsQuery extends Page {
  groupBy:
    'timeseries' | 'country' | 'continent' | 'device' | 'browser' | 'os' | 'referrer' | 'link' | `utm_${'source' | 'medium' | 'campaign' | 'term' | 'content'}`;
  interval: 'day' | 'month';
  startDate?: string;
  endDate?: string;
  linkId?: string;
}

const WHOLE: Page = { take: Number.MAX_SAFE_INTEGER, skip: 0, sort: 'asc' };

/**
 * GET /api/partner/analytics: the analytics of their links only (both their partner id and any
 * link asked must match), in UTC; a timeseries also carries what they earned per bucket.
 */
export async function portalAnalytics({ ctx, deps, input }: { ctx: Ctx; deps: AnalyticsDeps; input: SeatView & PortalAnalyticsQuery }) {
  const query = { startDate: input.startDate, endDate: input.endDate, groupBy: input.groupBy, linkId: input.linkId, partnerId: input.partnerId };
  const shape = (g: GroupRecord, earnings: Record<string, Amount> = {}) => ({
    key: g.key,
    clicks: g.clicks,
    leads: g.leads,
    sales: g.sales,
    revenue: g.revenue,
    earnings,
  });
  if (input.groupBy !== 'timeseries') return ((await analytics({ ctx, deps, input: { ...query, ...pageOf(input) } })) as GroupRecord[]).map((g) => shape(g));
  const period = periodOf(input);
  const [groups, earned] = await Promise.all([
    analytics({ ctx, deps, input: { ...query, interval: input.interval, ...WHOLE } }) as Promise<GroupRecord[]>,
    period === 'empty'
      ? new Map<string, Record<string, Amount>>()
      : partnerEarningsSeries({
          ctx,
          input: {
            partnerId: input.partnerId,
            linkId: input.linkId,
            interval: input.interval,
            span: { from: period.start?.getTime(), to: period.end?.getTime(), toInclusive: period.end ? !period.endExclusive : undefined },
          },
        }),
  ]);
  const empty = { clicks: 0, leads: 0, sales: 0, revenue: {} } as const;
  const byKey = new Map(groups.map((g) => [g.key, shape(g, earned.get(g.key))]));
  for (const [key, earnings] of earned) if (!byKey.has(key)) byKey.set(key, { key, ...empty, earnings });
  const series = [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  if (input.sort === 'desc') series.reverse();
  return series.slice(input.skip, input.skip + input.take);
}

const pageOf = (p: Page): Page => ({ take: p.take, skip: p.skip, sort: p.sort });

/** "Jane Doe" → "Jane D."; one name stays as it is. */
export function shortName(name: string | null): string | null {
  const parts = (name ?? '').trim().split(/\s+/u).filter(Boolean);
  if (parts.length === 0) return null;
  if (parts.length === 1) return parts[0]!;
  return `${parts[0]} ${[...parts[parts.length - 1]!][0]!.toUpperCase()}.`;
}

/** GET /api/partner/commissions: their commissions, each customer as a partner may see them. */
export async function portalCommissions({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: SeatView & Page & { status?: CommissionRow['status']; type?: CommissionRow['type']; currency?: string; payoutId?: string };
}) {
  const found = await partnerCommissions({
    ctx,
    input: { partnerId: input.partnerId, status: input.status, type: input.type, currency: input.currency, payoutId: input.payoutId, ...pageOf(input) },
  });
  const customerIds = [...new Set(found.flatMap((c) => (c.customerId ? [c.customerId] : [])))];
  const [customers, countries] = await Promise.all([customersByIds({ ctx, input: customerIds }), customerCountries({ ctx, input: customerIds })]);
  const shownCustomers = new Map(
    customers.map((c) => [
      c.id,
      { id: c.id, name: shortName(c.name), email: c.email ? maskEmail(c.email) : null, country: countries.get(c.id) ?? null, createdAt: c.createdAt },
    ]),
  );
  return found.map((c) => ({
    id: c.id,
    type: c.type,
    linkId: c.linkId,
    customer: (c.customerId && shownCustomers.get(c.customerId)) || null,
    saleAmount: c.saleAmount,
    currency: c.currency,
    earnings: c.earnings,
    status: c.status,
    reversedReason: c.reversedReason,
    payoutId: c.payoutId,
    description: c.description,
    createdAt: c.createdAt,
    payableAt: c.payableAt,
  }));
}

/** GET /api/partner/payouts: what each payout paid them. */
export function portalPayouts({ ctx, input }: { ctx: Ctx; input: SeatView & Page }) {
  return partnerPayouts({ ctx, input: { partnerId: input.partnerId, ...pageOf(input) } });
}

/** GET /api/partner/payout-details: their method, the masked destination, the holder, when they changed. */
export async function portalPayoutDetails({ ctx, sealer, input: seat }: { ctx: Ctx; sealer: Sealer; input: SeatView }) {
  const d = await ownPayoutDetailsOf({ ctx, sealer, input: { partnerId: seat.partnerId } });
  return { method: d.method, destination: d.destination, holderName: d.holderName, changedAt: d.changedAt };
}
