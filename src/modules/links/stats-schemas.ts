import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../http/schemas.js';
import { Money, withStatsRange } from '../analytics/schemas.js';

/** GET /api/links?withStats (operations.md §14): each link's clicks, leads, sales and money over a range. */

export const ORDER_BYS = ['clicks', 'leads', 'sales', 'revenue', 'createdAt'] as const;
export type OrderBy = (typeof ORDER_BYS)[number];

export const LinkStatsQuery = {
  withStats: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'Extension. true: each link gains stats (its clicks, leads, sales, revenue and refunded over startDate–endDate) and the list may be ordered by them (orderBy). Needs the analyticsRead scope besides linksRead (else 403 naming it). Every filter, take, skip and sort work with it.',
    }),
  ),
  ...withStatsRange,
  orderBy: Type.Optional(
    StringEnum(ORDER_BYS, {
      default: 'createdAt',
      description:
        'Extension: what sort orders by (sort gives the direction). clicks, leads, sales and revenue need withStats=true (else 400) and order by the figures of the range; revenue needs currency (else 400: amounts in different currencies are never added). Ties by createdAt, then insertion order, in the same direction. A link with nothing in the range counts 0. Paging with skip under such an order is best-effort: a click recorded between two requests may move a link across pages (shown twice or not at all).',
    }),
  ),
  currency: Type.Optional(
    Type.String({
      maxLength: 3,
      description:
        'Extension, with orderBy=revenue: the ISO 4217 currency (any case) whose net revenue orders the list; links without revenue in it count 0. An unknown code is a 400.',
    }),
  ),
};

const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const LinkStats = Type.Object(
  {
    clicks: Count('Clicks in the range (bots never counted)'),
    leads: Count('Leads in the range'),
    sales: Count('Sales in the range (a refunded sale still counts)'),
    revenue: Money(
      "Per currency (lower-case ISO 4217 code → amount), as GET /api/analytics's revenue: the range's sale amounts net of refunds, minor units; a currency of the link's sales is present even when refunds bring it to 0. Currencies are never added together.",
    ),
    refunded: Money('Per currency, the same keys as revenue: the part of those sales refunded, minor units.'),
  },
  {
    description:
      'Extension, only with withStats=true on GET /api/links: the link’s figures over the range asked for. Events count at the instant they happened (a sale and its refunds in the sale’s period), as in GET /api/analytics.',
  },
);

export const LINK_STATS_DESCRIPTION =
  'Extension: withStats=true adds each link’s stats over startDate–endDate (default the last 30 days) and needs analyticsRead; orderBy orders by them.';
