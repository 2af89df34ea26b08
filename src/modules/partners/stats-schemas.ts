import { Type } from '@sinclair/typebox';
import { listQueryProperties } from '../../http/schemas.js';
import { Money, withStatsRange } from '../analytics/schemas.js';

/** GET /api/partners?withStats (operations.md §18 "Partners in a program"): each partner's figures and earnings over a range. */

export const PartnerListQuery = Type.Object({
  ...listQueryProperties,
  withStats: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'Extension. true: each partner gains stats (the clicks, leads, sales and revenue of their links, and their earnings, over startDate–endDate). ' +
        'Needs the analyticsRead scope besides partnersRead (else 403 naming it); earnings also need programsRead (without it they are left out). ' +
        'take, skip and sort work with it.',
    }),
  ),
  ...withStatsRange,
});

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Earned = (description: string) => Type.Integer({ description: `${description}; minor units, exact (negative when custom commissions take back more)` });

export const PartnerStats = Type.Object(
  {
    clicks: Count("Clicks on the partner's links in the range (bots never counted)"),
    leads: Count("Leads attributed to the partner's links in the range"),
    sales: Count("Sales attributed to the partner's links in the range (a refunded sale still counts)"),
    revenue: Money(
      "Per currency (lower-case ISO 4217 code → amount): the range's sale amounts of the partner's links net of refunds, minor units, as GET /api/links?withStats adds them up. Currencies are never added together.",
    ),
    earnings: Type.Optional(
      Type.Record(
        Type.String({ pattern: '^[a-z]{3}$' }),
        Type.Object({
          pending: Earned('Commissions still held back (before payableAt), or in a payout not completed yet'),
          held: Earned('Commissions held by a fraud rule or a dispute (holdReasons)'),
          payable: Earned('Commissions payable now: past payableAt and in no payout'),
          paid: Earned('Commissions paid by a completed payout'),
        }),
        {
          description:
            "Only with the programsRead scope (left out without it). Per currency (lower-case ISO 4217 code), the sums of the partner's commissions created in the range by state, as GET /api/commissions shows them; reversed commissions are not counted. Integers in the currency's minor unit; currencies are never added together.",
        },
      ),
    ),
  },
  {
    description:
      "Extension, only with withStats=true on GET /api/partners: the partner's figures over the range asked for, those of their links (the links GET /api/links?partnerId lists, added up; events count at the instant they happened, as in GET /api/analytics), and their earnings.",
  },
);

export const PARTNER_STATS_DESCRIPTION =
  'Extension: withStats=true adds each partner’s stats over startDate–endDate (default the last 30 days) and needs analyticsRead; their earnings need programsRead as well (left out without it).';
