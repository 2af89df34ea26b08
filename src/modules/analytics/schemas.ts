import { Type } from '@sinclair/typebox';
import { DateTime, listQueryProperties, Nullable, StringEnum, Uuid } from '../../http/schemas.js';
import { GROUP_BYS } from './dimensions.js';
export { DIMENSION_FILTERS, GROUP_BYS } from './dimensions.js';

/** One query parameter per breakdown (extension): a row's key filters the view. */
function dimensionFilterProperties() {
  const how =
    "A breakdown row's key filters the view: (unknown) or (none) selects the clicks without a value, as the rows name them. Filters combine (all must match) with linkId, partnerId and each other, and apply to leads and sales by their click's values. A workspace's timeseries or totals under one filter, and a breakdown by the filter's own dimension, are read from rollups; other combinations from raw clicks and events (slower over long ranges).";
  const text = (groupBy: string) =>
    Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description: `Filter (extension): only clicks whose ${groupBy} is this value, a row key of groupBy=${groupBy}. ${how}`,
      }),
    );
  return {
    country: text('country'),
    continent: Type.Optional(
      StringEnum(['AF', 'AN', 'AS', 'EU', 'NA', 'OC', 'SA', '(unknown)'] as const, {
        description: `Filter (extension): only clicks from countries of this continent. ${how}`,
      }),
    ),
    region: text('region'),
    city: text('city'),
    device: text('device'),
    browser: text('browser'),
    os: text('os'),
    referrer: text('referrer'),
    referrerUrl: text('referrer_url'),
    utmSource: text('utm_source'),
    utmMedium: text('utm_medium'),
    utmCampaign: text('utm_campaign'),
    utmTerm: text('utm_term'),
    utmContent: text('utm_content'),
    trigger: Type.Optional(
      StringEnum(['link', 'qr', 'via', 'coupon'] as const, {
        description: `Filter (extension): only clicks opened from the link's QR code (qr), reported by the attribution script on the site itself (via: a partner's ?via= or a short id) or any other way (link); coupon: leads and sales that came by a partner's coupon code (their clicks are counted nowhere). ${how}`,
      }),
    ),
    collectionId: Type.Optional({ ...Uuid, description: `Filter (extension): only clicks of links now in this collection. ${how}` }),
    tagId: Type.Optional({ ...Uuid, description: `Filter (extension): only clicks of links now carrying this tag. ${how}` }),
  };
}

export const AnalyticsQuery = Type.Object({
  ...listQueryProperties,
  id: Type.Optional({ ...Uuid, description: 'Only this click (a click id); with groupBy, it and the lead and sale events attributed to it' }),
  linkId: Type.Optional({ ...Uuid, description: 'Only clicks of this link (with partnerId: both must match)' }),
  partnerId: Type.Optional({ ...Uuid, description: 'Only clicks of this partner' }),
  ...dimensionFilterProperties(),
  startDate: Type.Optional(
    Type.String({
      description:
        'ISO 8601 date or date-time (YYYY-MM-DD[THH:MM[:SS[.fff]](Z|±HH:MM)]); a date means 00:00 UTC. Inclusive. Before year 0001 (e.g. 0000-01-01): no lower limit.',
    }),
  ),
  endDate: Type.Optional(
    Type.String({
      description:
        'ISO 8601 date or date-time; a date means the end of that UTC day. Inclusive. After year 9999 (e.g. 9999-12-31 or a date-time pushed past it by its offset): no upper limit.',
    }),
  ),
  groupBy: Type.Optional(
    StringEnum(GROUP_BYS, {
      description:
        "Totals per group instead of click records: [{ key, clicks, visitors, leads, sales, saleAmount, revenue, refunded }] (visitors, revenue and refunded are extensions; revenue and refunded per currency, as CSV cells of JSON text, as is previous with compare). Extensions beyond the original seven: continent (from the country: AF, AN, AS, EU, NA, OC, SA), region and city (\"<name>, <country code>\", from trusted edge headers REGION_HEADER and CITY_HEADER, else the operator's city database GEOIP_CITY_DB; (unknown) without either), referrer_url, utm_source, utm_medium, utm_campaign, utm_term, utm_content (the UTM values the visitor was sent to the destination with: the link's, or the visitor's own), trigger (qr: opened from the link's QR code; via: reported by the attribution script on the site itself; coupon: leads and sales by a partner's coupon code, no click counted; link: any other way), collection, tag (a link with several tags counts in each; grouped by the link's current collection and tags) and partner (the click's partner), and variant (with linkId only: the index of the A/B test variant the click joined, 0 to 3, its leads and sales with it; (none) for clicks outside any test; a link's successive tests count under the same indexes, so narrow the period to one test's). A missing value is (unknown) for country, device, browser, os and referrer, (none) for the others. Rows keyed by an id carry names: link rows shortUrl and title, collection, tag and partner rows name. referrer_url of the whole workspace, for UTC days that are over: each day keeps its 500 most-clicked URLs and every URL with a lead or a sale, and counts its other clicks under (other), so a range of days reads a bounded number of rows; whole calendar months, hours and one link's or partner's URLs keep every URL.",
    }),
  ),
  interval: Type.Optional(StringEnum(['hour', 'day', 'month'] as const, { description: 'With groupBy=timeseries; default day' })),
  compare: Type.Optional(
    StringEnum(['previous', 'year'] as const, {
      description:
        "With groupBy and startDate (extension): each row gains previous, the same group's clicks, leads, sales and revenue in an earlier period of the same length. previous: the period just before (as many whole days when both bounds are whole days of the time zone, else as many milliseconds); year: the same dates and times one year before (29 February becomes 28). Without endDate the period ends now. A breakdown compares its own rows (a group seen only in the earlier period is not listed). A timeseries puts the i-th bucket of the earlier period beside the i-th of the current one, and lists every bucket where either period has data, so the rows' previous figures add up to the earlier period's totals; when the earlier period has more buckets (a month interval over months of unequal length, a leap day), its last ones sit beside buckets after the current period's end.",
    }),
  ),
  timezone: Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        'IANA time zone name (e.g. Asia/Kolkata, America/New_York; default UTC) for the timeseries buckets and for date-only startDate/endDate (a date means that local day). Bucket keys then carry the local offset (2026-03-01T00:00:00+05:30); without a timezone they end in Z. Extension.',
    }),
  ),
  format: Type.Optional(
    StringEnum(['json', 'csv'] as const, {
      description:
        "json (default) or csv: the same query as text/csv (RFC 4180, a header row, CRLF), streamed. Without take, csv means every matching row (after skip), read a page at a time; with take, the same rows as json. A text value beginning with =, +, -, @, TAB or CR gets a leading ' so that spreadsheets do not run it as a formula.",
    }),
  ),
});

const EXACT =
  'Exact at any size: a single sale is at most 10^12, so any total of up to 9,007 sales is at most 2^53 and reads exactly as a JavaScript number; a larger total is still written as its exact integer digits, which a client reads exactly with a big-integer JSON parser (JSON.parse rounds it).';

/** Amounts by currency code; a value past 2^53 is a bigint until it is written (see routes.ts). */
export const Money = (description: string) =>
  Type.Unsafe<Record<string, number | bigint>>({
    type: 'object',
    additionalProperties: { type: 'integer' },
    propertyNames: { pattern: '^[a-z]{3}$' },
    description: `${description} ${EXACT}`,
  });

export const ClickRecord = Type.Object(
  {
    id: Uuid,
    linkId: Uuid,
    partnerId: Nullable(Uuid),
    createdAt: DateTime,
    country: Nullable(Type.String()),
    device: StringEnum(['desktop', 'mobile', 'tablet', 'other'] as const),
    browser: Nullable(Type.String()),
    os: Nullable(Type.String()),
    referrer: Type.String({ description: 'Referring host or (direct)' }),
    referrerUrl: Nullable(Type.String()),
    utmSource: Nullable(
      Type.String({ description: "UTM values the visitor was sent to the destination with (the link's utm, or the visitor's own query); extension" }),
    ),
    utmMedium: Nullable(Type.String()),
    utmCampaign: Nullable(Type.String()),
    utmTerm: Nullable(Type.String()),
    utmContent: Nullable(Type.String()),
    trigger: StringEnum(['link', 'qr', 'via'] as const, {
      description: "qr when the visitor came by the link's QR code, via when the attribution script on the site reported it; extension",
    }),
  },
  { $id: 'Click', description: 'One click; id is the click id. Clicks by known bots are kept but not returned.' },
);

export const GroupRecord = Type.Object(
  {
    key: Type.String({ description: 'Group: bucket start (timeseries), the value, or an id (link, collection, tag, partner)' }),
    clicks: Type.Integer(),
    visitors: Type.Integer({
      description:
        "Visitor-days (extension): a visitor is a hash of the address and user agent under a salt kept for one UTC day (then deleted; no address is stored), counted once per day in the group of their first click that day — in the workspace for a workspace's reads, on the link for reads with linkId or partnerId. Over a range, the sum of daily visitors. Bots are not counted.",
    }),
    leads: Type.Integer({ description: 'Lead events in the period whose click falls in this group' }),
    sales: Type.Integer(),
    // number | bigint: a total beyond 2^53 is a bigint until it is written (see routes.ts).
    saleAmount: Type.Unsafe<number | bigint>({
      type: 'integer',
      description:
        'Sum of sale amounts net of refunds, minor units, all currencies added as they are (no conversion): meaningful for a workspace that sells in one currency; revenue gives each currency apart. ' +
        EXACT,
    }),
    revenue: Money(
      "Per currency (lower-case ISO 4217 code → amount): sale amounts net of refunds, in minor units; a currency of the group's sales is present even when refunds bring it to 0. Currencies are never added together. Extension.",
    ),
    refunded: Money('Per currency, the same keys as revenue: the part of those sales refunded (revenue + refunded is what was sold), minor units. Extension.'),
    previous: Type.Optional(
      Type.Object(
        { clicks: Type.Integer(), leads: Type.Integer(), sales: Type.Integer(), revenue: Money('Per currency, as revenue') },
        {
          description:
            "With compare: the same group's figures in the earlier period (0 and {} when it had none). A timeseries bucket is beside the earlier period's bucket at the same place (the i-th bucket of each period). Extension.",
        },
      ),
    ),
    name: Type.Optional(Nullable(Type.String({ description: 'collection, tag and partner rows: its name (null if it no longer exists)' }))),
    shortUrl: Type.Optional(Type.String({ description: 'link rows: the short URL' })),
    title: Type.Optional(Nullable(Type.String({ description: 'link rows: the title' }))),
  },
  { $id: 'AnalyticsGroup' },
);

export const PlaceSources = Type.Object(
  {
    cityDatabase: Nullable(
      Type.Object({
        databaseType: Type.String({ description: "The database's own type (its metadata), e.g. GeoLite2-City or DBIP-City-Lite" }),
        description: Nullable(Type.String({ description: "The database's own description (its metadata, in English)" })),
        attribution: Type.String({
          description: 'The credit line its licence asks for, to show under places (DB-IP Lite: "IP Geolocation by DB-IP"; GeoLite2: MaxMind\'s notice)',
        }),
        attributionUrl: Nullable(Type.String({ description: 'Where the credit links to' })),
      }),
    ),
    regionHeader: Type.Boolean({ description: 'A trusted edge header gives the region (REGION_HEADER)' }),
    cityHeader: Type.Boolean({ description: 'A trusted edge header gives the city (CITY_HEADER)' }),
  },
  { $id: 'AnalyticsPlaceSources' },
);

/** The range of `withStats` on the lists that take it (GET /api/links, GET /api/partners), read as GET /api/analytics reads its own. */
export const withStatsRange = {
  startDate: Type.Optional(
    Type.String({
      description:
        'Extension, with withStats: the start of the range, as GET /api/analytics reads it (ISO 8601 date or date-time; a date is that day in timezone; inclusive). Default: 30 days (720 hours) before the end. Ignored without withStats.',
    }),
  ),
  endDate: Type.Optional(
    Type.String({
      description:
        'Extension, with withStats: the end of the range, as GET /api/analytics reads it (a date means the end of that day in timezone; inclusive). Default: now. Ignored without withStats.',
    }),
  ),
  timezone: Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        'Extension, with withStats: IANA time zone name for date-only startDate/endDate (default UTC), as GET /api/analytics. Ignored without withStats.',
    }),
  ),
};
