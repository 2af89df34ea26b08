import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { serviceContext, type ResourceDeps } from '../../core/context.js';
import { ownerBySession as ownerBySessionOf, type RoleLookup } from '../../http/auth.js';
import { routesPlugin } from '../../http/types.js';
import { RotateInput, TrackingInput, TrackingSettings } from './schemas.js';
import { getTracking, putTracking, rotateTrackingKey, type TrackingDeps } from './service.js';

export type TrackingRouteDeps = ResourceDeps & { roleOf: RoleLookup; tracking: TrackingDeps };

const OWNER_NOTE =
  'Owner: with a session, only an owner of the workspace (X-Workspace-Id) may call it (403 owner_required for members and viewers); API keys, human tokens and OAuth tokens act by their scopes.';

/** The publishable key and where it may be used (attribution from the browser). */
export const trackingRoutes = routesPlugin<TrackingRouteDeps>('tracking', (app, deps) => {
  app.addSchema(TrackingSettings);
  const tags = ['Conversions'];
  const ownerBySession = ownerBySessionOf(deps.roleOf);
  const ctx = (req: FastifyRequest) => serviceContext(deps, req);
  const settings = Type.Ref(TrackingSettings);

  app.get(
    '/api/tracking',
    {
      config: { scope: 'analyticsRead' },
      preHandler: ownerBySession,
      schema: {
        operationId: 'getTracking',
        tags,
        summary: 'Browser tracking settings and the publishable key',
        description: `Extension. The publishable key (null before the first PUT), the hostnames whose pages may use it and whether browsers may report sales. ${OWNER_NOTE}`,
        response: { 200: settings },
      },
    },
    async (req) => getTracking({ ctx: ctx(req), deps: deps.tracking }),
  );

  app.put(
    '/api/tracking',
    {
      config: { scope: 'conversionsWrite' },
      preHandler: ownerBySession,
      schema: {
        operationId: 'putTracking',
        tags,
        summary: 'Set where browsers may track from',
        description:
          'Extension. Replaces the allowed hostnames (exact, or `*.site.example` for its subdomains) and clientSales; the first call makes the publishable key. ' +
          `Pages of other hostnames get 403 origin_not_allowed. ${OWNER_NOTE}`,
        body: TrackingInput,
        response: { 200: settings },
      },
    },
    async (req) => putTracking({ ctx: ctx(req), deps: deps.tracking, input: req.body }),
  );

  app.post(
    '/api/tracking/rotate',
    {
      config: { scope: 'conversionsWrite' },
      preHandler: ownerBySession,
      schema: {
        operationId: 'rotateTrackingKey',
        tags,
        summary: 'Make a new publishable key',
        description: `Extension. The former key keeps working for 24 hours beside the new one (time to publish the pages again), or stops at once with immediate. ${OWNER_NOTE}`,
        body: Type.Optional(RotateInput),
        response: { 200: settings },
      },
    },
    async (req) => rotateTrackingKey({ ctx: ctx(req), deps: deps.tracking, input: req.body ?? {} }),
  );
});
