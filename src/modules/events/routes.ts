import { Type } from '@sinclair/typebox';
import { routesPlugin } from '../../http/types.js';
import { serviceContext, type ResourceDeps } from '../../core/context.js';
import { JsonOrCsv } from '../../http/schemas.js';
import { Event, EventListQuery } from './schemas.js';
import { csvWindow } from '../../core/csv.js';
import { eventsCsv, listEvents, type EventListQuery as Query, type EventsDeps } from './service.js';

export const eventRoutes = routesPlugin<ResourceDeps & EventsDeps>('events', (app, deps) => {
  app.addSchema(Event);
  app.get(
    '/api/events',
    {
      config: { scope: 'analyticsRead' },
      schema: {
        operationId: 'listEvents',
        tags: ['Analytics'],
        summary: 'Lead and sale events',
        description:
          'Extension: the leads and sales recorded by the tracking endpoints, as one list of the workspace. Ordered by createdAt, then leads before sales at the same instant, then insertion order (desc is asc reversed), so skip/take paging visits every event exactly once. Filters combine (all must match); an id of another workspace matches nothing (an empty array). startDate and endDate are read and clamped as in GET /api/analytics.',
        querystring: EventListQuery,
        response: { 200: JsonOrCsv(Type.Array(Type.Ref(Event)), 'One event a line after a header line, UTF-8') },
      },
    },
    async (req, reply) => {
      const q = req.query as Query & { format?: 'json' | 'csv' };
      if (q.format !== 'csv') return listEvents({ ctx: serviceContext(deps, req), deps, input: q });
      const csv = eventsCsv({ ctx: serviceContext(deps, req), deps, input: { query: q, window: csvWindow(req.url, q) } });
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="events.csv"')
        .send(csv as never); // a stream: piped as it is, not checked against the JSON schema
    },
  );
});
