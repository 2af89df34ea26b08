import { hasAnySecondFactor } from '../passkeys/service.js';
import { Type } from '@sinclair/typebox';
import { baseContext, type PeopleDeps } from '../../core/context.js';
import { invalid } from '../../core/errors.js';
import { PLAN_LIMITS } from '../../core/plans.js';
import { SCOPE_ENDPOINTS } from '../../core/scope-guide.js';
import type { LoginThrottle } from '../../http/login-throttle.js';
import { addSchemaOnce, DeletedIds } from '../../http/schemas.js';
import { routesPlugin, type App } from '../../http/types.js';
import { endGrantsOf } from '../oauth/service.js';
import { revokeOtherSessions } from '../sessions/service.js';
import { revokeTokensOf } from '../tokens/service.js';
import { WorkspaceParam } from '../workspaces/schemas.js';
import { Me, MemberParam, MemberView, MePatch, RoleChange, User } from '../users/schemas.js';
import { changeRole, findUser, listMembers, removeMember, ROLE_SCOPES, updateProfile, workspacesOf, type Role } from '../users/service.js';
import { partnerProgramsOf } from '../partners/service.js';

/*
 * The account module has only routes: what a person does to their own account, their
 * workspaces and their members spans users, workspaces, sessions, tokens, OAuth grants and
 * second factors. Composed here, on top, those modules need not know each other (users below
 * sessions, tokens and passkeys; workspaces below users) and form no module cycle.
 */

export interface UserRoutesDeps extends PeopleDeps {
  throttle: LoginThrottle;
}

/** A person's own account (operations.md §7, §8) and the members of their workspaces. */
export const userRoutes = routesPlugin<UserRoutesDeps>('users', (app, deps) => {
  const ctx = baseContext(deps);
  addSchemaOnce(app, User);
  const tags = ['Account'];

  app.get(
    '/api/me',
    {
      config: { account: 'person' },
      schema: {
        operationId: 'getMe',
        tags,
        summary: 'Who am I',
        description:
          "The signed-in person and the workspaces they belong to, with their role, the scopes it allows and the plan's link features (so a client shows only what works).",
        response: { 200: Me },
      },
    },
    async (req) => {
      const { userId } = req.person!;
      const c = ctx(req);
      const [found, workspaces, secondFactor, partnerPrograms] = await Promise.all([
        findUser({ ctx: c, input: { id: userId } }),
        workspacesOf({ ctx: c, input: { userId } }),
        hasAnySecondFactor({ ctx: c, input: { userId } }),
        partnerProgramsOf({ ctx: c, input: { userId } }),
      ]);
      return {
        user: found,
        workspaces: workspaces.map((w) => ({
          id: w.id,
          name: w.name,
          plan: w.plan,
          role: w.role,
          scopes: [...ROLE_SCOPES[w.role]],
          features: [...PLAN_LIMITS[w.plan].features],
          maxBulkItems: w.maxBulkItems,
          requireMfa: w.requireMfa,
        })),
        partnerPrograms,
        secondFactor,
        scopeEndpoints: SCOPE_ENDPOINTS,
      };
    },
  );

  app.patch(
    '/api/me',
    {
      config: { account: 'session' },
      schema: {
        operationId: 'updateMe',
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
        ctx: ctx(req, now),
        input: { ...req.body, userId },
        deps: {
          throttle: {
            before: (email) => deps.throttle.before(email, req.ip, now.getTime()),
            failed: (email) => deps.throttle.failed(email, req.ip, now.getTime()),
          },
          endOtherSessions: async () => {
            await revokeOtherSessions({ ctx: ctx(req, now), input: { userId, except: sessionId } });
            await deps.authChanged();
          },
        },
      });
    },
  );

  memberRoutes(app, deps);
});

/** The members of a workspace: any member sees them, owners change roles, anyone may leave. */
function memberRoutes(app: App, deps: UserRoutesDeps) {
  const ctx = baseContext(deps);
  const tags = ['Workspace settings'];

  app.get(
    '/api/workspaces/:id/members',
    {
      config: { account: 'session', workspaceRole: 'member' },
      schema: {
        operationId: 'listMembers',
        tags,
        summary: 'Members',
        description: 'Any member may see who else is in.',
        params: WorkspaceParam,
        response: { 200: Type.Array(MemberView) },
      },
    },
    async (req) => listMembers({ ctx: ctx(req), input: { workspaceId: req.params.id } }),
  );

  app.patch(
    '/api/workspaces/:id/members/:userId',
    {
      config: { account: 'session', workspaceRole: 'owner' },
      schema: {
        operationId: 'updateMember',
        tags,
        summary: "Change a member's role",
        description: 'Owner only; never leaves the workspace without an owner (400). Takes effect on the next request of their sessions and tokens.',
        params: MemberParam,
        body: RoleChange,
        response: { 200: MemberView },
      },
    },
    async (req) => {
      const member = await changeRole({ ctx: ctx(req), input: { workspaceId: req.params.id, userId: req.params.userId, role: req.body.role } });
      await deps.authChanged();
      return member;
    },
  );

  app.delete(
    '/api/workspaces/:id/members/:userId',
    {
      config: { account: 'session', workspaceRole: 'member' },
      schema: {
        operationId: 'removeMember',
        tags,
        summary: 'Remove a member (or leave)',
        description: 'An owner removes anyone; anyone may remove themselves. Never the last owner (400). Their human tokens for this workspace end at once.',
        params: MemberParam,
        response: { 200: DeletedIds },
      },
    },
    async (req) => {
      const { id: workspaceId, userId: target } = req.params;
      const now = deps.clock();
      // What the membership granted ends with it: their human tokens and the apps they connected here.
      await removeMember({
        ctx: ctx(req, now),
        input: { workspaceId, userId: target, by: { userId: req.person!.userId, role: req.workspaceRole as Role } },
        deps: {
          onRemoved: async (tx) => {
            const inTx = { db: tx, now };
            await revokeTokensOf({ ctx: inTx, input: { userId: target, workspaceId } });
            await endGrantsOf({ ctx: inTx, input: { userId: target, workspaceId } });
          },
        },
      });
      await deps.authChanged();
      return { deletedIds: [target] };
    },
  );
}
