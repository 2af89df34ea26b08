import { Type } from '@sinclair/typebox';
import { baseContext, type PeopleListDeps } from '../../core/context.js';
import { addSchemaOnce, DeletedIds } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { WorkspaceParam } from '../workspaces/schemas.js';
import { CreatedKey, Key, KeyCreate, KeyParam } from './schemas.js';
import { createKey, keyExpiry, listKeys, revokeKey } from './service.js';

const tags = ['Workspace settings'];
const owner = { account: 'session', workspaceRole: 'owner' } as const;

/** A workspace's API keys, managed by its owners (operations.md §7). Session only. */
export const keyRoutes = routesPlugin<PeopleListDeps>('keys', (app, deps) => {
  const ctx = baseContext(deps);
  addSchemaOnce(app, Key);
  addSchemaOnce(app, CreatedKey);

  app.get(
    '/api/workspaces/:id/keys',
    {
      config: owner,
      schema: {
        operationId: 'listKeys',
        tags,
        summary: 'API keys',
        description: 'Owner only; without secrets. Revoked keys stay listed with revokedAt.',
        params: WorkspaceParam,
        response: { 200: Type.Array(Type.Ref('Key')) },
      },
    },
    async (req) => {
      await deps.flushLastUsed();
      return listKeys({ ctx: ctx(req), input: { workspaceId: req.params.id } });
    },
  );

  app.post(
    '/api/workspaces/:id/keys',
    {
      config: owner,
      schema: {
        operationId: 'createKey',
        tags,
        summary: 'Create an API key',
        description: 'Owner only. The `key` is shown only in this answer.',
        params: WorkspaceParam,
        body: KeyCreate,
        response: { 201: Type.Ref('CreatedKey') },
      },
    },
    async (req, reply) => {
      const expiresAt = keyExpiry(req.body.expiresAt);
      return reply.status(201).send(await createKey({ ctx: ctx(req), input: { ...req.body, expiresAt, workspaceId: req.params.id } }));
    },
  );

  app.delete(
    '/api/workspaces/:id/keys/:keyId',
    {
      config: owner,
      schema: {
        operationId: 'revokeKey',
        tags,
        summary: 'Revoke an API key',
        description: 'Owner only. It stops working at once, for good, on every instance.',
        params: KeyParam,
        response: { 200: DeletedIds },
      },
    },
    async (req) => {
      await revokeKey({ ctx: ctx(req), input: { id: req.params.keyId, workspaceId: req.params.id }, deps: { authChanged: deps.authChanged } });
      return { deletedIds: [req.params.keyId] };
    },
  );
});
