import { Type } from '@sinclair/typebox';
import { serviceContext, type ResourceDeps } from '../../core/context.js';
import { addSchemaOnce, ErrorBody } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { keyAvailability, linkDomains } from './placement.js';
import { KeyAvailability, KeyAvailabilityQuery, LinkDomain } from './placement-schemas.js';

const tags = ['Links'];
const read = { scope: 'linksRead' } as const;

/** Where a link can go, asked before writing it (the link form's Domain and Short path). */
export const linkPlacementRoutes = routesPlugin<ResourceDeps & { shortLinkBaseUrl: string }>('link-placement', (app, deps) => {
  addSchemaOnce(app, LinkDomain);
  const { shortLinkBaseUrl } = deps;

  app.get(
    '/api/links/domains',
    {
      config: read,
      schema: {
        operationId: 'listLinkDomains',
        tags,
        summary: 'Hosts a link may be put on',
        description:
          "Extension: the short-link host and the workspace's active (verified) claimed hosts, the default for new links first. Any member may read it (the claims themselves, GET /api/domains, are the owners').",
        response: { 200: Type.Array(Type.Ref(LinkDomain)) },
      },
    },
    async (req) => linkDomains({ ctx: serviceContext(deps, req), shortLinkBaseUrl }),
  );

  app.get(
    '/api/links/key-availability',
    {
      config: read,
      schema: {
        operationId: 'checkLinkKey',
        tags,
        summary: 'Whether a short path is free',
        description:
          "Extension: whether POST /api/links (or PUT, with linkId) would accept this key on this domain now, by the same checks, and if not, the code it would answer. Keys are one namespace per host across workspaces, so a key another workspace holds is taken here too; a later write can still lose the key to a concurrent one (the write's own 400 decides).",
        querystring: KeyAvailabilityQuery,
        response: { 200: KeyAvailability, 404: Type.Ref(ErrorBody) },
      },
    },
    async (req) => keyAvailability({ ctx: serviceContext(deps, req), shortLinkBaseUrl, input: req.query }),
  );
});
