import { Type } from '@sinclair/typebox';
import { baseContext, type PeopleListDeps } from '../../core/context.js';
import { addSchemaOnce, DeletedIds } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { CreatedHumanToken, HumanToken, TokenCreate, TokenParam } from './schemas.js';
import { createToken, listTokens, revokeToken } from './service.js';

const tags = ['Account'];

/** A person's human tokens (operations.md §8). Session only, so no token can mint another. */
export const tokenRoutes = routesPlugin<PeopleListDeps>('tokens', (app, deps) => {
  const ctx = baseContext(deps);
  addSchemaOnce(app, HumanToken);
  addSchemaOnce(app, CreatedHumanToken);

  app.get(
    '/api/me/tokens',
    {
      config: { account: 'session' },
      schema: {
        operationId: 'listHumanTokens',
        tags,
        summary: 'My human tokens',
        description: 'Without their secret.',
        response: { 200: Type.Array(Type.Ref('HumanToken')) },
      },
    },
    async (req) => {
      await deps.flushLastUsed();
      return listTokens({ ctx: ctx(req), input: { userId: req.person!.userId } });
    },
  );

  app.post(
    '/api/me/tokens',
    {
      config: { account: 'session' },
      schema: {
        operationId: 'createHumanToken',
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
      const created = await createToken({ ctx: ctx(req), input: { ...req.body, expiresAt, userId: req.person!.userId } });
      return reply.status(201).send(created);
    },
  );

  app.delete(
    '/api/me/tokens/:id',
    {
      config: { account: 'session' },
      schema: {
        operationId: 'revokeHumanToken',
        tags,
        summary: 'Revoke a human token',
        description: 'It stops working at once, on every instance.',
        params: TokenParam,
        response: { 200: DeletedIds },
      },
    },
    async (req) => {
      await revokeToken({ ctx: ctx(req), input: { userId: req.person!.userId, id: req.params.id } });
      await deps.authChanged();
      return { deletedIds: [req.params.id] };
    },
  );
});
