import { Type } from '@sinclair/typebox';
import { baseContext, type BaseCtx, type PeopleDeps } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { addSchemaOnce, errorAnswer } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { workspacesOf } from '../users/service.js';
import { partnerProgramsOf } from '../partners/service.js';
import { hasAnySecondFactor } from '../passkeys/service.js';
import { Workspace, WorkspaceNew, WorkspaceParam, WorkspaceSettings } from '../workspaces/schemas.js';
import { changeSettings, createOwnedWorkspace } from '../workspaces/service.js';
import { MyWorkspace } from './schemas.js';

const tags = ['Workspace settings'];

/** ALLOW_SIGNUP: open sign-up, and with it workspaces for anyone signed in. */
export type WorkspaceRouteDeps = PeopleDeps & { allowSignup: boolean };

/**
 * Whether this person may create a workspace: an account that exists only as a partner (no
 * membership, a partner somewhere) may not unless sign-up is open (operations.md §18).
 */
async function mayCreateWorkspace(c: BaseCtx, userId: string, allowSignup: boolean): Promise<boolean> {
  if (allowSignup) return true;
  const [workspaces, programs] = await Promise.all([workspacesOf({ ctx: c, input: { userId } }), partnerProgramsOf({ ctx: c, input: { userId } })]);
  return workspaces.length > 0 || programs.length === 0;
}

/** A person's workspaces (operations.md §7). Session only. */
export const workspaceRoutes = routesPlugin<WorkspaceRouteDeps>('workspaces', (app, deps) => {
  const ctx = baseContext(deps);
  addSchemaOnce(app, Workspace);

  app.get(
    '/api/workspaces',
    {
      config: { account: 'session' },
      schema: {
        operationId: 'listWorkspaces',
        tags,
        summary: 'My workspaces',
        description: 'With my role in each, oldest membership first.',
        response: { 200: Type.Array(MyWorkspace) },
      },
    },
    async (req) => workspacesOf({ ctx: ctx(req), input: { userId: req.person!.userId } }),
  );

  app.post(
    '/api/workspaces',
    {
      config: { account: 'session' },
      schema: {
        operationId: 'createWorkspace',
        tags,
        summary: 'Create a workspace',
        description:
          'On the free plan; the caller becomes its owner. An account that exists only as a partner (no workspace, a partner in a program) gets 403 `signup_closed` unless the server has ALLOW_SIGNUP=true.',
        body: WorkspaceNew,
        response: { 201: Type.Ref('Workspace'), 403: errorAnswer('signup_closed: a partner-only account, and sign-up is closed') },
      },
    },
    async (req, reply) => {
      const c = ctx(req);
      const userId = req.person!.userId;
      if (!(await mayCreateWorkspace(c, userId, deps.allowSignup))) throw new AppError('signup_closed');
      return reply.status(201).send(await createOwnedWorkspace({ ctx: c, input: { userId, name: req.body.name } }));
    },
  );

  app.patch(
    '/api/workspaces/:id',
    {
      config: { account: 'session', workspaceRole: 'owner' },
      schema: {
        operationId: 'updateWorkspace',
        tags,
        summary: "Change a workspace's settings",
        description:
          'Owner only: the name, and `requireMfa`. While `requireMfa` is on, a member without two-factor sign-in is refused in the workspace with 403 `mfa_required` — their session requests, their human tokens and the OAuth apps acting for them — until they turn it on (their account routes, /api/me/… and /api/auth/…, stay open); API keys are not people and are unaffected. Only an owner who has two-factor sign-in can turn it on (400). Takes effect on the next request, on every instance.',
        params: WorkspaceParam,
        body: WorkspaceSettings,
        response: { 200: Type.Ref('Workspace') },
      },
    },
    async (req) => {
      const c = ctx(req);
      const userId = req.person!.userId;
      const changed = await changeSettings({
        ctx: c,
        input: { id: req.params.id, ...req.body },
        deps: { callerHasSecondFactor: () => hasAnySecondFactor({ ctx: c, input: { userId } }) },
      });
      await deps.authChanged();
      return changed;
    },
  );
});
