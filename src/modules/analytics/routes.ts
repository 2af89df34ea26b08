import { Type } from '@sinclair/typebox';
import type { App, AppDeps } from '../../http/app.js';
import { serviceContext } from '../../http/context.js';
import { AnalyticsQuery, ClickRecord, GroupRecord } from './schemas.js';
import { analytics, type AnalyticsQuery as Query } from './service.js';

export function registerAnalyticsRoutes(app: App, deps: AppDeps): void {
  app.addSchema(ClickRecord);
  app.addSchema(GroupRecord);
  app.get(
    '/api/analytics',
    {
      config: { scope: 'analyticsRead' },
      schema: {
        tags: ['Analytics'],
        summary: 'Click analytics',
        description:
          'Without groupBy: click records, filtered and paged, ordered by createdAt. With groupBy: one row per group with clicks, leads, sales and saleAmount (timeseries ordered by time per `sort`; other groups by clicks, most first). Bot clicks are never counted. Clicks are written in batches, so a click shows here a second or two after the redirect (its click id is accepted by the tracking endpoints at once). Dates are read strictly (no 30 February, no 24:00); a startDate after the endDate is a 400. Bounds are clamped to the years 0001–9999 after their offset or whole day is applied: a start before 0001 or an end after 9999 is no limit on that side, a start after 9999 or an end before 0001 matches nothing (an empty array).',
        querystring: AnalyticsQuery,
        response: { 200: Type.Array(Type.Union([Type.Ref(ClickRecord), Type.Ref(GroupRecord)])) },
      },
    },
    async (req) => analytics(serviceContext(deps, req.principal), req.query as Query),
  );
}
