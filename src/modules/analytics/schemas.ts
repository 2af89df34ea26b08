import { Type } from '@sinclair/typebox';
import { DateTime, listQueryProperties, Nullable, StringEnum, Uuid } from '../../http/schemas.js';

export const AnalyticsQuery = Type.Object({
  ...listQueryProperties,
  id: Type.Optional({ ...Uuid, description: 'Only this click (a click id); with groupBy, it and the lead and sale events attributed to it' }),
  linkId: Type.Optional({ ...Uuid, description: 'Only clicks of this link (with partnerId: both must match)' }),
  partnerId: Type.Optional({ ...Uuid, description: 'Only clicks of this partner' }),
  startDate: Type.Optional(
    Type.String({ description: 'ISO 8601 date or date-time (YYYY-MM-DD[THH:MM[:SS[.fff]](Z|±HH:MM)]); a date means 00:00 UTC. Inclusive. Before year 0001 (e.g. 0000-01-01): no lower limit.' }),
  ),
  endDate: Type.Optional(
    Type.String({ description: 'ISO 8601 date or date-time; a date means the end of that UTC day. Inclusive. After year 9999 (e.g. 9999-12-31 or a date-time pushed past it by its offset): no upper limit.' }),
  ),
  groupBy: Type.Optional(
    StringEnum(['timeseries', 'country', 'device', 'browser', 'os', 'referrer', 'link'] as const, {
      description: 'Totals per group instead of click records: [{ key, clicks, leads, sales, saleAmount }]',
    }),
  ),
  interval: Type.Optional(StringEnum(['hour', 'day', 'month'] as const, { description: 'With groupBy=timeseries; default day (UTC)' })),
  format: Type.Optional(
    StringEnum(['json', 'csv'] as const, {
      description:
        "json (default) or csv: the same query as text/csv (RFC 4180, a header row, CRLF), streamed. Without take, csv means every matching row (after skip), read a page at a time; with take, the same rows as json. A text value beginning with =, +, -, @, TAB or CR gets a leading ' so that spreadsheets do not run it as a formula.",
    }),
  ),
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
  },
  { $id: 'Click', description: 'One click; id is the click id. Clicks by known bots are kept but not returned.' },
);

export const GroupRecord = Type.Object(
  {
    key: Type.String({ description: 'Group: bucket start (timeseries), country, device, browser, os, referrer host or link id' }),
    clicks: Type.Integer(),
    leads: Type.Integer({ description: 'Lead events in the period whose click falls in this group' }),
    sales: Type.Integer(),
    // number | bigint: a total beyond 2^53 is a bigint until it is written (see routes.ts).
    saleAmount: Type.Unsafe<number | bigint>({
      type: 'integer',
      description:
        'Sum of sale amounts, minor units (currencies are not converted). Exact at any size: a single sale is at most 10^12, so any total of up to 9,007 sales is at most 2^53 and reads exactly as a JavaScript number; a larger total is still written as its exact integer digits, which a client reads exactly with a big-integer JSON parser (JSON.parse rounds it).',
    }),
  },
  { $id: 'AnalyticsGroup' },
);
