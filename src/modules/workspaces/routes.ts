import { Type } from '@sinclair/typebox';
import { baseContext, type PeopleDeps } from '../../core/context.js';
import { addSchemaOnce } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { workspacesOf } from '../users/service.js';
import { MyWorkspace, Workspace, WorkspaceNew, WorkspaceParam, WorkspaceRename } from './schemas.js';
import { createOwnedWorkspace, renameWorkspace } from './service.js';

const tags = ['Workspace settings'];

/** A person's workspaces (operations.md §7). Session only. */
export const workspaceRoutes = routesPlugin<PeopleDeps>('workspaces', (app, deps) => {
  const ctx = baseContext(deps);
  addSchemaOnce(app, Workspace);

  app.get(
    '/api/workspaces',
    { config: { account: 'session' }, schema: { tags, summary: 'My workspaces', description: 'With my role in each, oldest membership first.', response: { 200: Type.Array(MyWorkspace) } } },
    async (req) => workspacesOf({ ctx: ctx(), input: { userId: req.person!.userId } }),
  );

  app.post(
    '/api/workspaces',
    { config: { account: 'session' }, schema: { tags, summary: 'Create a workspace', description: 'On the free plan; the caller becomes its owner.', body: WorkspaceNew, response: { 201: Type.Ref('Workspace') } } },
    async (req, reply) => reply.status(201).send(await createOwnedWorkspace({ ctx: ctx(), input: { userId: req.person!.userId, name: req.body.name } })),
  );

  app.patch(
    '/api/workspaces/:id',
    {
      config: { account: 'session', workspaceRole: 'owner' },
      schema: { tags, summary: 'Rename a workspace', description: 'Owner only.', params: WorkspaceParam, body: WorkspaceRename, response: { 200: Type.Ref('Workspace') } },
    },
    async (req) => {
      const renamed = await renameWorkspace({ ctx: ctx(), input: { id: req.params.id, name: req.body.name } });
      await deps.authChanged();
      return renamed;
    },
  );
});
