import { Type } from '@sinclair/typebox';
import { baseContext } from '../../core/context.js';
import type { Conn } from '../../db/connect.js';
import { routesPlugin } from '../../http/types.js';
import { adminGuard } from '../../http/auth.js';
import { addSchemaOnce, DeletedIds, ErrorBody } from '../../http/schemas.js';
import * as keys from '../keys/service.js';
import { prometheusText } from './prometheus.js';
import { resealAll, type ResealDeps } from '../secrets/service.js';
import * as users from '../users/service.js';
import * as workspaces from '../workspaces/service.js';
import {
  CreatedKey,
  IdParam,
  Key,
  KeyCreate,
  Member,
  MemberCreate,
  ResealAnswer,
  User,
  UserCreate,
  Workspace,
  WorkspaceCreate,
  WorkspacePatch,
} from './schemas.js';

const errors = {
  400: Type.Ref(ErrorBody),
  401: Type.Ref(ErrorBody),
  404: Type.Ref(ErrorBody),
};
const tags = ['Operator'];
const security = [{ adminToken: [] }];

export interface AdminDeps {
  db: Conn;
  adminToken: string;
  clock: () => Date;
  /** Tells every instance that keys or workspaces changed (cached credentials carry plan and limits). */
  authChanged: () => Promise<void>;
  /** Writes the recorded last uses of keys, so the list shows them. */
  flushLastUsed: () => Promise<void>;
  /** What the process is doing now; `reset` starts a new measuring window. */
  metrics?: (reset: boolean) => Record<string, unknown>;
  /** The sealer and the caches `POST /admin/secrets/reseal` tells. */
  reseal: ResealDeps;
}

/** Operator API (operations.md §2): workspaces, keys and people, behind ADMIN_TOKEN (isolated: its own guard). */
export const adminRoutes = routesPlugin<AdminDeps>(
  'admin',
  (app, deps) => {
    const ctx = baseContext(deps);
    addSchemaOnce(app, Workspace);
    addSchemaOnce(app, Key);
    addSchemaOnce(app, CreatedKey);
    addSchemaOnce(app, User);
    addSchemaOnce(app, Member);
    app.addHook('onRequest', adminGuard(deps.adminToken));

    app.post(
      '/workspaces',
      { schema: { operationId: 'adminCreateWorkspace', tags, security, body: WorkspaceCreate, response: { 201: Type.Ref(Workspace), ...errors } } },
      async (req, reply) => reply.status(201).send(await workspaces.createWorkspace({ ctx: ctx(req), input: req.body })),
    );

    app.get(
      '/workspaces',
      { schema: { operationId: 'adminListWorkspaces', tags, security, response: { 200: Type.Array(Type.Ref(Workspace)), ...errors } } },
      async () => workspaces.listWorkspaces({ ctx: ctx(undefined) }),
    );

    app.patch(
      '/workspaces/:id',
      {
        schema: {
          operationId: 'adminUpdateWorkspace',
          tags,
          security,
          params: IdParam,
          body: WorkspacePatch,
          response: { 200: Type.Ref(Workspace), ...errors },
        },
      },
      async (req) => {
        const updated = await workspaces.updateWorkspace({ ctx: ctx(req), input: { ...req.body, id: req.params.id } });
        // Cached principals carry the plan and limits: every instance drops them.
        await deps.authChanged();
        return updated;
      },
    );

    app.post(
      '/workspaces/:id/keys',
      { schema: { operationId: 'adminCreateKey', tags, security, params: IdParam, body: KeyCreate, response: { 201: Type.Ref(CreatedKey), ...errors } } },
      async (req, reply) => {
        const expiresAt = keys.keyExpiry(req.body.expiresAt);
        const created = await keys.createKey({ ctx: ctx(req), input: { ...req.body, expiresAt, workspaceId: req.params.id } });
        return reply.status(201).send(created);
      },
    );

    app.get(
      '/workspaces/:id/keys',
      {
        schema: {
          operationId: 'adminListKeys',
          tags,
          security,
          description:
            'Every key of the workspace, oldest first, without its secret. Revoked keys stay in the list with their `revokedAt`, so an audit sees what existed and when it stopped.',
          params: IdParam,
          response: { 200: Type.Array(Type.Ref(Key)), ...errors },
        },
      },
      async (req) => {
        await deps.flushLastUsed();
        return keys.listKeys({ ctx: ctx(req), input: { workspaceId: req.params.id } });
      },
    );

    // People (operations.md §7): for automation; a person would use the setup page or an invite.
    app.post(
      '/users',
      { schema: { operationId: 'adminCreateUser', tags, security, body: UserCreate, response: { 201: Type.Ref(User), ...errors } } },
      async (req, reply) => reply.status(201).send(await users.createUser({ ctx: ctx(req), input: req.body })),
    );

    app.get('/users', { schema: { operationId: 'adminListUsers', tags, security, response: { 200: Type.Array(Type.Ref(User)), ...errors } } }, async () =>
      users.listUsers({ ctx: ctx(undefined) }),
    );

    app.post(
      '/workspaces/:id/members',
      { schema: { operationId: 'adminAddMember', tags, security, params: IdParam, body: MemberCreate, response: { 201: Type.Ref(Member), ...errors } } },
      async (req, reply) => {
        const member = await users.addMember({ ctx: ctx(req), input: { workspaceId: req.params.id, userId: req.body.userId, role: req.body.role } });
        await deps.authChanged();
        return reply.status(201).send(member);
      },
    );

    app.get(
      '/metrics',
      {
        schema: {
          operationId: 'adminGetMetrics',
          tags,
          security,
          description:
            "What this process is doing: event-loop delay (max, p99, mean in ms since start or the last reset), clicks (redirects, recorded, written, queued in memory, spilled to disk, spool bytes, replayed), memory, and with a read replica its lag and whether analytics reads use it. `format=prometheus` answers the same figures in Prometheus's text format (0.0.4), each a gauge named by its path (`linktrail_clicks_queued`): scrape `/admin/metrics` with `params: { format: [prometheus] }` and the ADMIN_TOKEN as bearer credentials. `reset=true` starts a new measuring window after answering. Each instance answers for itself.",
          querystring: Type.Object({
            reset: Type.Optional(Type.Boolean()),
            format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('prometheus')], { default: 'json' })),
          }),
          response: {
            200: {
              description: "The metrics as JSON, or in Prometheus's text format with format=prometheus",
              content: {
                'application/json': { schema: Type.Object({}, { additionalProperties: true }) },
                'text/plain': { schema: Type.String({ description: 'Prometheus text exposition format 0.0.4' }) },
              },
            },
            ...errors,
          },
        },
      },
      async (req, reply) => {
        const metrics = deps.metrics?.(req.query.reset === true) ?? {};
        if (req.query.format !== 'prometheus') return metrics;
        return reply.type('text/plain; version=0.0.4; charset=utf-8').send(prometheusText(metrics) as never);
      },
    );

    app.post(
      '/secrets/reseal',
      {
        schema: {
          operationId: 'adminResealSecrets',
          tags,
          security,
          description:
            'After a SECRET rotation (the new SECRET, the old one in SECRET_PREVIOUS): opens every sealed value (link passwords, webhook signing secrets…) and writes back under the current SECRET those sealed under SECRET_PREVIOUS or in an older form, in batches. Idempotent: a second call moves nothing. Answers a count per table and column; a value no key opens is counted in `unopenable` and left as it is. `linktrail secrets reseal` calls it.',
          response: { 200: ResealAnswer, ...errors },
        },
      },
      async () => ({ columns: await resealAll({ ctx: ctx(undefined), deps: deps.reseal }) }),
    );

    app.delete(
      '/keys/:id',
      { schema: { operationId: 'adminRevokeKey', tags, security, params: IdParam, response: { 200: DeletedIds, ...errors } } },
      async (req) => {
        await keys.revokeKey({ ctx: ctx(req), input: { id: req.params.id }, deps: { authChanged: deps.authChanged } });
        return { deletedIds: [req.params.id] };
      },
    );
  },
  { isolated: true },
);
