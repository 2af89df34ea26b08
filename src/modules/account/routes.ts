import { Type } from '@sinclair/typebox';
import type { Conn } from '../../db/connect.js';
import { invalid } from '../../core/errors.js';
import type { LoginThrottle } from '../../http/login-throttle.js';
import { addSchemaOnce, DeletedIds } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { listSessions, revokeOtherSessions, revokeSession } from '../sessions/service.js';
import { createToken, listTokens, revokeToken } from '../tokens/service.js';
import { SCOPE_ENDPOINTS } from '../../core/scope-guide.js';
import { ROLE_SCOPES } from '../users/roles.js';
import { User } from '../users/schemas.js';
import { PLAN_LIMITS } from '../../core/plans.js';
import { findUser, updateProfile, workspacesOf } from '../users/service.js';
import { CreatedHumanToken, HumanToken, IdParam, Me, MePatch, SessionView, TokenCreate } from './schemas.js';

export interface AccountRoutesDeps {
  db: Conn;
  clock: () => Date;
  /** Every instance forgets cached credentials: revocations hold on the next request everywhere. */
  authChanged: () => Promise<void>;
  /** Writes the batched last uses, so lists show them. */
  flushLastUsed: () => Promise<void>;
  throttle: LoginThrottle;
}

const tags = ['Account'];

/** A person's own account: profile, sessions and human tokens (operations.md §7, §8). */
export const accountRoutes = routesPlugin<AccountRoutesDeps>('account', (app, deps) => {
  const { db } = deps;
  addSchemaOnce(app, User);
  addSchemaOnce(app, HumanToken);
  addSchemaOnce(app, CreatedHumanToken);

  app.get(
    '/api/me',
    { config: { account: 'person' }, schema: { tags, summary: 'Who am I', description: 'The signed-in person and the workspaces they belong to, with their role, the scopes it allows and the plan\'s link features (so a client shows only what works).', response: { 200: Me } } },
    async (req) => {
      const { userId } = req.person!;
      const [found, workspaces] = await Promise.all([findUser({ db, id: userId }), workspacesOf({ db, userId })]);
      return {
        user: found,
        workspaces: workspaces.map((w) => ({ id: w.id, name: w.name, plan: w.plan, role: w.role, scopes: [...ROLE_SCOPES[w.role]], features: [...PLAN_LIMITS[w.plan].features], maxBulkItems: w.maxBulkItems })),
        scopeEndpoints: SCOPE_ENDPOINTS,
      };
    },
  );

  app.patch(
    '/api/me',
    {
      config: { account: 'session' },
      schema: {
        tags,
        summary: 'Change my name or password',
        description: 'Needs `currentPassword`. A new password ends every other session of the account (this one stays).',
        body: MePatch,
        response: { 200: Type.Ref('User') },
      },
    },
    async (req) => {
      const { userId, sessionId } = req.person!;
      const now = deps.clock();
      if (req.body.name === undefined && req.body.password === undefined) throw invalid('body', 'nothing_to_update');
      return updateProfile({
        db,
        userId,
        input: req.body,
        now,
        throttle: {
          before: (email) => deps.throttle.before(email, req.ip, now.getTime()),
          failed: (email) => deps.throttle.failed(email, req.ip, now.getTime()),
        },
        endOtherSessions: async () => {
          await revokeOtherSessions({ db, userId, except: sessionId, now });
          await deps.authChanged();
        },
      });
    },
  );

  app.get(
    '/api/me/sessions',
    { config: { account: 'session' }, schema: { tags, summary: 'My sessions', description: 'Live sessions, oldest first.', response: { 200: Type.Array(SessionView) } } },
    async (req) => {
      await deps.flushLastUsed();
      return (await listSessions({ db, userId: req.person!.userId })).map((s) => ({ ...s, current: s.id === req.person!.sessionId }));
    },
  );

  app.delete(
    '/api/me/sessions/:id',
    { config: { account: 'session' }, schema: { tags, summary: 'End a session', description: 'It stops working at once, on every instance (ending the current one signs this browser out).', params: IdParam, response: { 200: DeletedIds } } },
    async (req) => {
      await revokeSession({ db, userId: req.person!.userId, id: req.params.id, now: deps.clock() });
      await deps.authChanged();
      return { deletedIds: [req.params.id] };
    },
  );

  app.get(
    '/api/me/tokens',
    { config: { account: 'session' }, schema: { tags, summary: 'My human tokens', description: 'Without their secret.', response: { 200: Type.Array(Type.Ref('HumanToken')) } } },
    async (req) => {
      await deps.flushLastUsed();
      return listTokens({ db, userId: req.person!.userId, now: deps.clock() });
    },
  );

  app.post(
    '/api/me/tokens',
    {
      config: { account: 'session' },
      schema: {
        tags,
        summary: 'Create a human token',
        description:
          'A personal token for one workspace you belong to, with scopes your role has there; the `token` is shown only in this answer. Sent like an API key, it acts with its scopes ∩ your current role, and stops at once when revoked, expired, or when you leave the workspace.',
        body: TokenCreate,
        response: { 201: Type.Ref('CreatedHumanToken') },
      },
    },
    async (req, reply) => {
      const expiresAt = req.body.expiresAt === undefined ? undefined : new Date(req.body.expiresAt);
      const created = await createToken({ db, userId: req.person!.userId, input: { ...req.body, expiresAt }, now: deps.clock() });
      return reply.status(201).send(created);
    },
  );

  app.delete(
    '/api/me/tokens/:id',
    { config: { account: 'session' }, schema: { tags, summary: 'Revoke a human token', description: 'It stops working at once, on every instance.', params: IdParam, response: { 200: DeletedIds } } },
    async (req) => {
      await revokeToken({ db, userId: req.person!.userId, id: req.params.id, now: deps.clock() });
      await deps.authChanged();
      return { deletedIds: [req.params.id] };
    },
  );
});
