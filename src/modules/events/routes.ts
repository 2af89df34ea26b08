import { Type } from '@sinclair/typebox';
import { routesPlugin } from '../../http/types.js';
import { serviceContext, type ResourceDeps } from '../bulk/context.js';
import { Event, EventListQuery } from './schemas.js';
import { listEvents, type EventListQuery as Query } from './service.js';

export const eventRoutes = routesPlugin<ResourceDeps>('events', (app, deps) => {
  app.addSchema(Event);
  app.get(
    '/api/events',
    {
      config: { scope: 'analyticsRead' },
      schema: {
        tags: ['Analytics'],
        summary: 'Lead and sale events',
        description:
          'Extension (api.md names no events endpoint): the leads and sales recorded by the tracking endpoints, as one list of the workspace. Ordered by createdAt, then leads before sales at the same instant, then insertion order (desc is asc reversed), so skip/take paging visits every event exactly once. Filters combine (all must match); an id of another workspace matches nothing (an empty array). startDate and endDate are read and clamped as in GET /api/analytics.',
        querystring: EventListQuery,
        response: { 200: Type.Array(Type.Ref(Event)) },
      },
    },
    async (req) => listEvents(serviceContext(deps, req), req.query as Query),
  );
});
