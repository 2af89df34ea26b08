import { Type } from '@sinclair/typebox';
import { routesPlugin } from '../../http/types.js';
import { serviceContext, type ResourceDeps } from '../../core/context.js';
import { JsonOrCsv } from '../../http/schemas.js';
import { AnalyticsQuery, ClickRecord, GroupRecord, PlaceSources } from './schemas.js';
import { analytics, analyticsCsv, type AnalyticsDeps, type AnalyticsQuery as Query, type ClickRecord as Click, type GroupRecord as Group } from './service.js';
import { csvWindow } from '../../core/csv.js';
import { exactJson, hasBigint } from '../../core/exact-json.js';

/**
 * Groups with a sum past 2^53 (a bigint) are written by hand: the schema serializer cannot
 * match a bigint against the response union, and JSON.stringify refuses it. The digits go out
 * exact.
 */
const hasHugeSum = (records: (Click | Group)[]): records is Group[] => records.length > 0 && 'saleAmount' in records[0]! && hasBigint(records);

export const analyticsRoutes = routesPlugin<ResourceDeps & AnalyticsDeps>('analytics', (app, deps) => {
  app.addSchema(ClickRecord);
  app.addSchema(GroupRecord);
  app.get(
    '/api/analytics',
    {
      config: { scope: 'analyticsRead', heavy: true },
      schema: {
        operationId: 'getAnalytics',
        tags: ['Analytics'],
        summary: 'Click analytics',
        description:
          'Without groupBy: click records, filtered and paged, ordered by createdAt. With groupBy: one row per group with clicks, leads, sales, saleAmount, and revenue and refunded per currency (timeseries ordered by time per `sort`; other groups by clicks, most first); with compare, the figures of each row in an earlier period beside them (previous). Bot clicks are never counted. Clicks are written in batches, so a click shows here a second or two after the redirect (its click id is accepted by the tracking endpoints at once). Dates are read strictly (no 30 February, no 24:00); a startDate after the endDate is a 400. Bounds are clamped to the years 0001–9999 after their offset or whole day is applied: a start before 0001 or an end after 9999 is no limit on that side, a start after 9999 or an end before 0001 matches nothing (an empty array).',
        querystring: AnalyticsQuery,
        response: {
          200: JsonOrCsv(Type.Array(Type.Union([Type.Ref(ClickRecord), Type.Ref(GroupRecord)])), 'One record or group a line after a header line, UTF-8'),
        },
      },
    },
    async (req, reply) => {
      const q = req.query as Query & { format?: 'json' | 'csv' };
      if (q.format === 'csv') {
        const csv = analyticsCsv({ ctx: serviceContext(deps, req), deps, input: { query: q, window: csvWindow(req.url, q) } });
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="analytics.csv"')
          .send(csv as never); // a stream: piped as it is, not checked against the JSON schema
      }
      const records = await analytics({ ctx: serviceContext(deps, req), deps, input: req.query as Query });
      if (hasHugeSum(records)) return reply.type('application/json; charset=utf-8').serializer(exactJson).send(records);
      return records;
    },
  );
  app.get(
    '/api/analytics/places',
    {
      config: { scope: 'analyticsRead' },
      schema: {
        operationId: 'getAnalyticsPlaces',
        tags: ['Analytics'],
        summary: 'Where places come from (extension)',
        description:
          "Where groupBy=region and groupBy=city get their values: the operator's city database (GEOIP_CITY_DB), with the credit its licence asks a page showing its data to carry, and whether trusted edge headers (REGION_HEADER, CITY_HEADER) are configured. Without either, every click's region and city are (unknown).",
        response: { 200: PlaceSources },
      },
    },
    async () => deps.places ?? { cityDatabase: null, regionHeader: false, cityHeader: false },
  );
});
