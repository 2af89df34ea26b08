import { Type } from '@sinclair/typebox';
import { baseContext, type PeopleListDeps } from '../../core/context.js';
import { DeletedIds } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { SessionParam, SessionView } from './schemas.js';
import { listSessions, revokeSession } from './service.js';

const tags = ['Account'];

/** A person's own sessions (operations.md §7). Session only. */
export const sessionRoutes = routesPlugin<PeopleListDeps>('sessions', (app, deps) => {
  const ctx = baseContext(deps);

  app.get(
    '/api/me/sessions',
    {
      config: { account: 'session' },
      schema: {
        operationId: 'listSessions',
        tags,
        summary: 'My sessions',
        description: 'Live sessions, oldest first.',
        response: { 200: Type.Array(SessionView) },
      },
    },
    async (req) => {
      await deps.flushLastUsed();
      return (await listSessions({ ctx: ctx(req), input: { userId: req.person!.userId } })).map((s) => ({ ...s, current: s.id === req.person!.sessionId }));
    },
  );

  app.delete(
    '/api/me/sessions/:id',
    {
      config: { account: 'session' },
      schema: {
        operationId: 'revokeSession',
        tags,
        summary: 'End a session',
        description: 'It stops working at once, on every instance (ending the current one signs this browser out).',
        params: SessionParam,
        response: { 200: DeletedIds },
      },
    },
    async (req) => {
      await revokeSession({ ctx: ctx(req), input: { userId: req.person!.userId, id: req.params.id } });
      await deps.authChanged();
      return { deletedIds: [req.params.id] };
    },
  );
});
