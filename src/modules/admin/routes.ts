import { Type } from '@sinclair/typebox';
import { baseContext } from '../../core/context.js';
import type { Conn } from '../../db/connect.js';
import { routesPlugin } from '../../http/types.js';
import { adminGuard } from '../../http/auth.js';
import { addSchemaOnce, DeletedIds, ErrorBody } from '../../http/schemas.js';
import * as keys from '../keys/service.js';
import { resealAll, type ResealDeps } from '../secrets/service.js';
import * as users from '../users/service.js';
import * as workspaces from '../workspaces/service.js';
import { CreatedKey, IdParam, Key, KeyCreate, Member, MemberCreate, ResealAnswer, User, UserCreate, Workspace, WorkspaceCreate, WorkspacePatch } from './schemas.js';

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
export const adminRoutes = routesPlugin<AdminDeps>('admin', (app, deps) => {
  const ctx = baseContext(deps);
  addSchemaOnce(app, Workspace);
  addSchemaOnce(app, Key);
  addSchemaOnce(app, CreatedKey);
  addSchemaOnce(app, User);
  addSchemaOnce(app, Member);
  app.addHook('onRequest', adminGuard(deps.adminToken));

  app.post(
    '/workspaces',
    { schema: { tags, security, body: WorkspaceCreate, response: { 201: Type.Ref(Workspace), ...errors } } },
    async (req, reply) => reply.status(201).send(await workspaces.createWorkspace({ ctx: ctx(), input: req.body })),
  );

  app.get('/workspaces', { schema: { tags, security, response: { 200: Type.Array(Type.Ref(Workspace)), ...errors } } }, async () =>
    workspaces.listWorkspaces({ ctx: ctx() }),
  );

  app.patch(
    '/workspaces/:id',
    { schema: { tags, security, params: IdParam, body: WorkspacePatch, response: { 200: Type.Ref(Workspace), ...errors } } },
    async (req) => {
      const updated = await workspaces.updateWorkspace({ ctx: ctx(), input: { ...req.body, id: req.params.id } });
      // Cached principals carry the plan and limits: every instance drops them.
      await deps.authChanged();
      return updated;
    },
  );

  app.post(
    '/workspaces/:id/keys',
    { schema: { tags, security, params: IdParam, body: KeyCreate, response: { 201: Type.Ref(CreatedKey), ...errors } } },
    async (req, reply) => {
      const expiresAt = keys.keyExpiry(req.body.expiresAt);
      const created = await keys.createKey({ ctx: ctx(), input: { ...req.body, expiresAt, workspaceId: req.params.id } });
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/workspaces/:id/keys',
    {
      schema: {
        tags,
        security,
        description: 'Every key of the workspace, oldest first, without its secret. Revoked keys stay in the list with their `revokedAt`, so an audit sees what existed and when it stopped.',
        params: IdParam,
        response: { 200: Type.Array(Type.Ref(Key)), ...errors },
      },
    },
    async (req) => {
      await deps.flushLastUsed();
      return keys.listKeys({ ctx: ctx(), input: { workspaceId: req.params.id } });
    },
  );

  // People (operations.md §7): for automation; a person would use the setup page or an invite.
  app.post(
    '/users',
    { schema: { tags, security, body: UserCreate, response: { 201: Type.Ref(User), ...errors } } },
    async (req, reply) => reply.status(201).send(await users.createUser({ ctx: ctx(), input: req.body })),
  );

  app.get('/users', { schema: { tags, security, response: { 200: Type.Array(Type.Ref(User)), ...errors } } }, async () => users.listUsers({ ctx: ctx() }));

  app.post(
    '/workspaces/:id/members',
    { schema: { tags, security, params: IdParam, body: MemberCreate, response: { 201: Type.Ref(Member), ...errors } } },
    async (req, reply) => {
      const member = await users.addMember({ ctx: ctx(), input: { workspaceId: req.params.id, userId: req.body.userId, role: req.body.role } });
      await deps.authChanged();
      return reply.status(201).send(member);
    },
  );

  app.get(
    '/metrics',
    {
      schema: {
        tags,
        security,
        description:
          'What this process is doing: event-loop delay (max, p99, mean in ms since start or the last reset), clicks (recorded, written, queued in memory, spilled to disk, spool bytes) and memory. `reset=true` starts a new measuring window after answering. Each instance answers for itself.',
        querystring: Type.Object({ reset: Type.Optional(Type.Boolean()) }),
        response: { 200: Type.Object({}, { additionalProperties: true }), ...errors },
      },
    },
    async (req) => deps.metrics?.(req.query.reset === true) ?? {},
  );

  app.post(
    '/secrets/reseal',
    {
      schema: {
        tags,
        security,
        description:
          'After a SECRET rotation (the new SECRET, the old one in SECRET_PREVIOUS): opens every sealed value (link passwords, webhook signing secrets…) and writes back under the current SECRET those sealed under SECRET_PREVIOUS or in an older form, in batches. Idempotent: a second call moves nothing. Answers a count per table and column; a value no key opens is counted in `unopenable` and left as it is. `linktrail secrets reseal` calls it.',
        response: { 200: ResealAnswer, ...errors },
      },
    },
    async () => ({ columns: await resealAll({ ctx: ctx(), deps: deps.reseal }) }),
  );

  app.delete(
    '/keys/:id',
    { schema: { tags, security, params: IdParam, response: { 200: DeletedIds, ...errors } } },
    async (req) => {
      await keys.revokeKey({ ctx: ctx(), input: { id: req.params.id }, deps: { authChanged: deps.authChanged } });
      return { deletedIds: [req.params.id] };
    },
  );
}, { isolated: true });
