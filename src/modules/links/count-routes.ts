import { Type } from '@sinclair/typebox';
import { serviceContext, type ResourceDeps } from '../../core/context.js';
import { StringEnum, Uuid } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { COUNT_BYS, linkCounts } from './counts.js';

/** How many links each collection, tag or partner holds (the library pages' counts). */
export const linkCountRoutes = routesPlugin<ResourceDeps>('link-counts', (app, deps) => {
  app.get(
    '/api/links/counts',
    {
      config: { scope: 'linksRead' },
      schema: {
        operationId: 'countLinks',
        tags: ['Links'],
        summary: 'Links per collection, tag or partner',
        description:
          'Extension: the number of live (not deleted) links each collection, tag or partner of the workspace holds; one holding none is left out. A link with several tags counts once under each.',
        querystring: Type.Object({ by: StringEnum(COUNT_BYS, { description: 'What to count links by' }) }),
        response: { 200: Type.Array(Type.Object({ id: Uuid, links: Type.Integer({ minimum: 1 }) })) },
      },
    },
    async (req) => linkCounts({ ctx: serviceContext(deps, req), input: req.query }),
  );
});
