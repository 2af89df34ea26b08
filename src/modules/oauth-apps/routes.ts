import { Type } from '@sinclair/typebox';
import { baseContext, type PeopleDeps } from '../../core/context.js';
import { addSchemaOnce, DeletedIds } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import * as s from './schemas.js';
import { createApp, deleteApp, listApps, listAuthorizations, revokeAuthorization, rotateSecret, updateApp } from './service.js';

const tags = ['OAuth apps'];

/** OAuth apps a workspace registers, and the apps connected to it (operations.md §7, §9). Session only, owners only. */
export const oauthAppsRoutes = routesPlugin<PeopleDeps>('oauth-apps', (app, deps) => {
  const ctx = baseContext(deps);
  addSchemaOnce(app, s.OauthApp);
  addSchemaOnce(app, s.CreatedOauthApp);
  addSchemaOnce(app, s.Authorization);
  const config = { account: 'session', workspaceRole: 'owner' } as const;

  app.get(
    '/api/workspaces/:id/oauth-apps',
    {
      config,
      schema: {
        operationId: 'listOauthApps',
        tags,
        summary: 'OAuth apps',
        description: 'Owner only. The apps this workspace registered, oldest first, without secrets.',
        params: s.WorkspaceParam,
        response: { 200: Type.Array(Type.Ref('OauthApp')) },
      },
    },
    async (req) => {
      return listApps({ ctx: ctx(req), input: { workspaceId: req.params.id } });
    },
  );

  app.post(
    '/api/workspaces/:id/oauth-apps',
    {
      config,
      schema: {
        operationId: 'createOauthApp',
        tags,
        summary: 'Register an OAuth app',
        description:
          'Owner only. Gives the app its `clientId` (`ltc_…`); a confidential app also gets its `clientSecret` (`ltcs_…`), shown only in this answer. Any user may then connect the app to a workspace of theirs, within these scopes.',
        params: s.WorkspaceParam,
        body: s.OauthAppCreate,
        response: { 201: Type.Ref('CreatedOauthApp') },
      },
    },
    async (req, reply) => {
      return reply.status(201).send(await createApp({ ctx: ctx(req), input: { ...req.body, workspaceId: req.params.id } }));
    },
  );

  app.patch(
    '/api/workspaces/:id/oauth-apps/:appId',
    {
      config,
      schema: {
        operationId: 'updateOauthApp',
        tags,
        summary: 'Change an OAuth app',
        description: 'Owner only. Renames it, or replaces its redirect URIs or the scopes it may ask for; at least one field.',
        params: s.AppParam,
        body: s.OauthAppUpdate,
        response: { 200: Type.Ref('OauthApp') },
      },
    },
    async (req) => {
      const updated = await updateApp({ ctx: ctx(req), input: { ...req.body, workspaceId: req.params.id, id: req.params.appId } });
      await deps.authChanged();
      return updated;
    },
  );

  app.delete(
    '/api/workspaces/:id/oauth-apps/:appId',
    {
      config,
      schema: {
        operationId: 'deleteOauthApp',
        tags,
        summary: 'Delete an OAuth app',
        description: 'Owner only. Every consent given to it, in any workspace, is revoked: its tokens stop working at once.',
        params: s.AppParam,
        response: { 200: DeletedIds },
      },
    },
    async (req) => {
      await deleteApp({ ctx: ctx(req), input: { workspaceId: req.params.id, id: req.params.appId } });
      await deps.authChanged();
      return { deletedIds: [req.params.appId] };
    },
  );

  app.post(
    '/api/workspaces/:id/oauth-apps/:appId/secret',
    {
      config,
      schema: {
        operationId: 'rotateOauthAppSecret',
        tags,
        summary: 'New client secret',
        description:
          'Owner only, confidential apps only (a public app is a 400). The new secret is shown only in this answer; the old one stops working at once.',
        params: s.AppParam,
        response: { 200: s.NewClientSecret },
      },
    },
    async (req) => {
      const rotated = await rotateSecret({ ctx: ctx(req), input: { workspaceId: req.params.id, id: req.params.appId } });
      await deps.authChanged();
      return rotated;
    },
  );

  app.get(
    '/api/workspaces/:id/authorizations',
    {
      config,
      schema: {
        operationId: 'listAuthorizations',
        tags,
        summary: 'Connected apps',
        description: 'Owner only. The consents people gave apps to act in this workspace (whichever workspace registered the app), oldest first.',
        params: s.WorkspaceParam,
        response: { 200: Type.Array(Type.Ref('Authorization')) },
      },
    },
    async (req) => {
      return listAuthorizations({ ctx: ctx(req), input: { workspaceId: req.params.id } });
    },
  );

  app.delete(
    '/api/workspaces/:id/authorizations/:grantId',
    {
      config,
      schema: {
        operationId: 'revokeAuthorization',
        tags,
        summary: 'Disconnect an app',
        description: 'Owner only. Revokes the consent: every token issued under it stops working at once.',
        params: s.GrantParam,
        response: { 200: DeletedIds },
      },
    },
    async (req) => {
      await revokeAuthorization({ ctx: ctx(req), input: { workspaceId: req.params.id, id: req.params.grantId } });
      await deps.authChanged();
      return { deletedIds: [req.params.grantId] };
    },
  );
});
