import { Type } from '@sinclair/typebox';
import { baseContext, type PeopleDeps } from '../../core/context.js';
import { addSchemaOnce } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { workspacesOf } from '../users/service.js';
import { hasAnySecondFactor } from '../passkeys/service.js';
import { Workspace, WorkspaceNew, WorkspaceParam, WorkspaceSettings } from '../workspaces/schemas.js';
import { changeSettings, createOwnedWorkspace } from '../workspaces/service.js';
import { MyWorkspace } from './schemas.js';

const tags = ['Workspace settings'];

/** A person's workspaces (operations.md §7). Session only. */
export const workspaceRoutes = routesPlugin<PeopleDeps>('workspaces', (app, deps) => {
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
        description: 'On the free plan; the caller becomes its owner.',
        body: WorkspaceNew,
        response: { 201: Type.Ref('Workspace') },
      },
    },
    async (req, reply) => reply.status(201).send(await createOwnedWorkspace({ ctx: ctx(req), input: { userId: req.person!.userId, name: req.body.name } })),
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
