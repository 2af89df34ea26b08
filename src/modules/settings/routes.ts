import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { Conn } from '../../db/connect.js';
import { AppError, invalid } from '../../core/errors.js';
import { addSchemaOnce, DeletedIds } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { acceptInvite, createInvite, listInvites, revokeInvite } from '../invites/service.js';
import { CreatedKey, Key, KeyCreate } from '../keys/schemas.js';
import { createKey, listKeys, revokeKey } from '../keys/service.js';
import { isFirstParty, sessionCookie } from '../sessions/cookie.js';
import { createSession } from '../sessions/service.js';
import { endGrantsOf } from '../oauth/service.js';
import { revokeTokensOf } from '../tokens/service.js';
import { changeRole, listMembers, removeMember, requireMembership } from '../users/members.js';
import { workspacesOf } from '../users/service.js';
import { Workspace } from '../workspaces/schemas.js';
import { createOwnedWorkspace, renameWorkspace } from '../workspaces/service.js';
import * as s from './schemas.js';

export interface SettingsRoutesDeps {
  db: Conn;
  baseUrl: string;
  sessionMaxMs: number;
  clock: () => Date;
  /** Every instance forgets cached credentials and memberships: changes hold on the next request everywhere. */
  authChanged: () => Promise<void>;
  flushLastUsed: () => Promise<void>;
}

const tags = ['Workspace settings'];

/** Workspaces, members, invitations and keys of the people who own them (operations.md §7). Session only. */
export const settingsRoutes = routesPlugin<SettingsRoutesDeps>('settings', (app, deps) => {
  const { db } = deps;
  addSchemaOnce(app, Workspace);
  addSchemaOnce(app, Key);
  addSchemaOnce(app, CreatedKey);
  const session = { account: 'session' as const };
  const owner = (userId: string, workspaceId: string) => requireMembership({ db, userId, workspaceId, owner: true });

  app.get('/api/workspaces', { config: session, schema: { tags, summary: 'My workspaces', description: 'With my role in each, oldest membership first.', response: { 200: Type.Array(s.MyWorkspace) } } }, async (req) =>
    workspacesOf({ db, userId: req.person!.userId }),
  );

  app.post(
    '/api/workspaces',
    { config: session, schema: { tags, summary: 'Create a workspace', description: 'On the free plan; the caller becomes its owner.', body: s.WorkspaceNew, response: { 201: Type.Ref('Workspace') } } },
    async (req, reply) => reply.status(201).send(await createOwnedWorkspace({ db, userId: req.person!.userId, name: req.body.name })),
  );

  app.patch(
    '/api/workspaces/:id',
    { config: session, schema: { tags, summary: 'Rename a workspace', description: 'Owner only.', params: s.WorkspaceParam, body: s.WorkspaceRename, response: { 200: Type.Ref('Workspace') } } },
    async (req) => {
      await owner(req.person!.userId, req.params.id);
      const renamed = await renameWorkspace({ db, id: req.params.id, name: req.body.name });
      await deps.authChanged();
      return renamed;
    },
  );

  app.get(
    '/api/workspaces/:id/members',
    { config: session, schema: { tags, summary: 'Members', description: 'Any member may see who else is in.', params: s.WorkspaceParam, response: { 200: Type.Array(s.MemberView) } } },
    async (req) => {
      await requireMembership({ db, userId: req.person!.userId, workspaceId: req.params.id });
      return listMembers({ db, workspaceId: req.params.id });
    },
  );

  app.patch(
    '/api/workspaces/:id/members/:userId',
    {
      config: session,
      schema: { tags, summary: "Change a member's role", description: 'Owner only; never leaves the workspace without an owner (400). Takes effect on the next request of their sessions and tokens.', params: s.MemberParam, body: s.RoleChange, response: { 200: s.MemberView } },
    },
    async (req) => {
      await owner(req.person!.userId, req.params.id);
      const member = await changeRole({ db, workspaceId: req.params.id, userId: req.params.userId, role: req.body.role });
      await deps.authChanged();
      return member;
    },
  );

  app.delete(
    '/api/workspaces/:id/members/:userId',
    {
      config: session,
      schema: { tags, summary: 'Remove a member (or leave)', description: 'An owner removes anyone; anyone may remove themselves. Never the last owner (400). Their human tokens for this workspace end at once.', params: s.MemberParam, response: { 200: DeletedIds } },
    },
    async (req) => {
      const { userId } = req.person!;
      const { id: workspaceId, userId: target } = req.params;
      await requireMembership({ db, userId, workspaceId, owner: target !== userId });
      const now = deps.clock();
      // What the membership granted ends with it: their human tokens and the apps they connected here.
      await removeMember({
        db,
        workspaceId,
        userId: target,
        onRemoved: async (tx) => {
          await revokeTokensOf({ db: tx, userId: target, workspaceId, now });
          await endGrantsOf({ db: tx, userId: target, workspaceId, now });
        },
      });
      await deps.authChanged();
      return { deletedIds: [target] };
    },
  );

  app.get(
    '/api/workspaces/:id/invites',
    { config: session, schema: { tags, summary: 'Pending invitations', description: 'Owner only; without their tokens.', params: s.WorkspaceParam, response: { 200: Type.Array(s.InviteView) } } },
    async (req) => {
      await owner(req.person!.userId, req.params.id);
      return listInvites({ db, workspaceId: req.params.id, now: deps.clock() });
    },
  );

  app.post(
    '/api/workspaces/:id/invites',
    {
      config: session,
      schema: { tags, summary: 'Invite someone', description: 'Owner only. The `url` carries the token: shown only here, valid 7 days, usable once. A new invitation to the same address replaces the pending one.', params: s.WorkspaceParam, body: s.InviteCreate, response: { 201: s.CreatedInvite } },
    },
    async (req, reply) => {
      await owner(req.person!.userId, req.params.id);
      const invite = await createInvite({ db, workspaceId: req.params.id, email: req.body.email, role: req.body.role, invitedBy: req.person!.userId, now: deps.clock(), baseUrl: deps.baseUrl });
      return reply.status(201).send(invite);
    },
  );

  app.delete(
    '/api/workspaces/:id/invites/:inviteId',
    { config: session, schema: { tags, summary: 'Withdraw an invitation', params: s.InviteParam, response: { 200: DeletedIds } } },
    async (req) => {
      await owner(req.person!.userId, req.params.id);
      await revokeInvite({ db, workspaceId: req.params.id, id: req.params.inviteId, now: deps.clock() });
      return { deletedIds: [req.params.inviteId] };
    },
  );

  app.post(
    '/api/invites/accept',
    {
      config: { account: 'optional' },
      schema: {
        tags,
        summary: 'Accept an invitation',
        description:
          'Signed in (the session cookie): joins with this account, whose email must be the invited one. Not signed in, with `name` and `password`: creates the account under the invited email and signs it in (the cookie).',
        body: s.InviteAccept,
        response: { 201: s.AcceptedInvite },
      },
    },
    async (req, reply) => {
      const now = deps.clock();
      const { token, name, password } = req.body;
      if (req.person) {
        const { member } = await acceptInvite({ db, token, now, userId: req.person.userId });
        await deps.authChanged();
        return reply.status(201).send(member);
      }
      if (name === undefined || password === undefined) throw invalid(name === undefined ? 'name' : 'password', 'required');
      // It signs the browser in: never for a page of another site (login CSRF).
      if (!isFirstParty(req, new URL(deps.baseUrl).origin)) throw new AppError('cross_site_sign_in');
      const { member, user } = await acceptInvite({ db, token, now, newAccount: { name, password } });
      const created = await createSession({ db, userId: user.id, userAgent: req.headers['user-agent'], now });
      return withCookie(reply, deps, created.token).status(201).send(member);
    },
  );

  app.get(
    '/api/workspaces/:id/keys',
    { config: session, schema: { tags, summary: 'API keys', description: 'Owner only; without secrets. Revoked keys stay listed with revokedAt.', params: s.WorkspaceParam, response: { 200: Type.Array(Type.Ref('Key')) } } },
    async (req) => {
      await owner(req.person!.userId, req.params.id);
      await deps.flushLastUsed();
      return listKeys({ db, workspaceId: req.params.id });
    },
  );

  app.post(
    '/api/workspaces/:id/keys',
    { config: session, schema: { tags, summary: 'Create an API key', description: 'Owner only. The `key` is shown only in this answer.', params: s.WorkspaceParam, body: KeyCreate, response: { 201: Type.Ref('CreatedKey') } } },
    async (req, reply) => {
      await owner(req.person!.userId, req.params.id);
      const expiresAt = req.body.expiresAt === undefined ? undefined : new Date(req.body.expiresAt);
      if (expiresAt && (Number.isNaN(expiresAt.getTime()) || expiresAt.getUTCFullYear() < 1 || expiresAt.getUTCFullYear() > 9999)) throw invalid('expiresAt', 'format', { format: 'date-time' });
      return reply.status(201).send(await createKey({ db, workspaceId: req.params.id, input: { ...req.body, expiresAt } }));
    },
  );

  app.delete(
    '/api/workspaces/:id/keys/:keyId',
    { config: session, schema: { tags, summary: 'Revoke an API key', description: 'Owner only. It stops working at once, for good, on every instance.', params: s.KeyParam, response: { 200: DeletedIds } } },
    async (req) => {
      await owner(req.person!.userId, req.params.id);
      await revokeKey({ db, id: req.params.keyId, workspaceId: req.params.id, now: deps.clock(), authChanged: deps.authChanged });
      return { deletedIds: [req.params.keyId] };
    },
  );
});

const withCookie = (reply: FastifyReply, deps: SettingsRoutesDeps, token: string) => reply.header('set-cookie', sessionCookie(deps.baseUrl, token, deps.sessionMaxMs));

