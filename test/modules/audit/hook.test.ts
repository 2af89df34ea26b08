import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import Fastify, { type FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit } from '../../../src/core/audit.js';
import { withSavepoint, withTransaction } from '../../../src/core/transaction.js';
import { rows, type Database } from '../../../src/db/connect.js';
import { newId } from '../../../src/db/ids.js';
import { migrate } from '../../../src/db/migrate.js';
import type { App } from '../../../src/http/types.js';
import { registerAuditHooks, type AuditMissing } from '../../../src/modules/audit/hook.js';
import { onPostgres } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { migratedPglite } from '../../helpers/migrated-pglite.js';

/**
 * operations.md §15: an audited route whose service wrote no entry on a success is a change the
 * log would not show — the hook says so in the log and, as every test app asks ('fail'), answers
 * 500, so a test of any path of any audited route fails on it; in production ('log') the committed
 * change keeps its answer (a 500 would invite a retry that makes it twice). An entry written in a
 * transaction (or savepoint) that then rolled back is no entry either. Bare servers: audited
 * routes that write nothing, or write their entry and roll it back.
 */
type Logged = { level: number; msg: string; route?: string };
const workspaceId = newId();

function bareServer(missing: AuditMissing, logged: Logged[], routes: (server: ReturnType<typeof Fastify>) => void = () => undefined) {
  const server = Fastify({
    logger: {
      level: 'error',
      stream: new Writable({
        write(chunk: Buffer, _enc, done) {
          logged.push(JSON.parse(chunk.toString()));
          done();
        },
      }),
    },
  });
  server.addHook('onRequest', async (request) => {
    (request as unknown as { principal: unknown }).principal = { workspace: { id: workspaceId }, actor: { type: 'key', keyId: 'key-1' }, scopes: new Set() };
  });
  registerAuditHooks(server as unknown as App, () => new Date(), missing);
  server.post('/api/forgetful', { config: { scope: 'tagsWrite' } as object }, async () => ({ ok: true }));
  routes(server);
  server.delete('/api/missing/:id', { config: { scope: 'tagsWrite' } as object }, async (_req, reply) =>
    reply.status(404).send({ error: { code: 'not_found' } }),
  );
  return server;
}

const logged: Logged[] = [];
const app = bareServer('fail', logged);
const producedLogged: Logged[] = [];
const production = bareServer('log', producedLogged);

beforeAll(async () => {
  await Promise.all([app.ready(), production.ready()]);
});

afterAll(async () => {
  await Promise.all([app.close(), production.close()]);
});

describe('an audited route', () => {
  it('that answers 2xx without an entry answers 500 and logs the route', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/forgetful' });
    expect(res.statusCode).toBe(500);
    expect(logged.some((l) => l.msg.startsWith('audit entry not written') && l.route === 'POST /api/forgetful')).toBe(true);
  });

  it('that fails (a record not found) keeps its answer: no entry is owed', async () => {
    logged.length = 0;
    const res = await app.inject({ method: 'DELETE', url: `/api/missing/${newId()}` });
    expect(res.statusCode).toBe(404);
    expect(logged).toEqual([]);
  });

  it("in production ('log') keeps a 2xx answer and still logs the route", async () => {
    const res = await production.inject({ method: 'POST', url: '/api/forgetful' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    expect(producedLogged.some((l) => l.msg.startsWith('audit entry not written') && l.route === 'POST /api/forgetful')).toBe(true);
  });
});

describe('an audited route whose entry was rolled back', () => {
  let database: Database;
  const rolledLogged: Logged[] = [];
  let server: ReturnType<typeof bareServer>;
  const ctxOf = (request: FastifyRequest) => ({ auditIntent: request.auditIntent });
  const entry = async (id: string) => (await rows<{ id: string }>(database.db, sql`SELECT id FROM audit_entries WHERE id = ${id}::uuid`))[0];
  /** The entry ids the routes wrote, by route: read back after the answer. */
  const entryIds: Record<string, string> = {};
  const remember = (request: FastifyRequest) => (entryIds[request.url] = request.auditIntent!.id);

  beforeAll(async () => {
    database = onPostgres ? await freshDatabase() : await migratedPglite();
    if (onPostgres) await migrate(database);
    server = bareServer('fail', rolledLogged, (s) => {
      const route = (url: string, handler: (request: FastifyRequest) => Promise<void>) =>
        s.post(url, { config: { scope: 'tagsWrite' } as object }, async (request: FastifyRequest) => {
          remember(request);
          await handler(request);
          return { ok: true };
        });
      // The entry and the change commit: the control.
      route('/api/committed', (request) => withTransaction(database.db, (tx) => audit(ctxOf(request), tx, { ids: [newId()] })));
      // The entry written, then the transaction rolled back; the route answers a success all the same.
      route('/api/rolled-back', (request) =>
        withTransaction(database.db, async (tx) => {
          await audit(ctxOf(request), tx, { ids: [newId()] });
          tx.rollback();
        }).catch(() => undefined),
      );
      // The entry written in a savepoint that rolled back (an import's refused row); the transaction commits.
      route('/api/savepoint-rolled-back', (request) =>
        withTransaction(database.db, async (tx) => {
          await withSavepoint(tx, async (sp) => {
            await audit(ctxOf(request), sp, { ids: [newId()] });
            throw new Error('row refused');
          }).catch(() => undefined);
        }),
      );
    });
    await server.ready();
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    if (onPostgres) await dropFreshDatabases();
    else await database?.close();
  });

  it('that committed answers its success, its entry stored', async () => {
    const res = await server.inject({ method: 'POST', url: '/api/committed' });
    expect(res.statusCode, res.body).toBe(200);
    expect(await entry(entryIds['/api/committed']!)).toBeDefined();
  });

  it.each(['/api/rolled-back', '/api/savepoint-rolled-back'])('%s is reported missing: 500 and the route logged, no entry stored', async (url) => {
    rolledLogged.length = 0;
    const res = await server.inject({ method: 'POST', url });
    expect(res.statusCode).toBe(500);
    expect(rolledLogged.some((l) => l.msg.startsWith('audit entry not written') && l.route === `POST ${url}`)).toBe(true);
    expect(await entry(entryIds[url]!)).toBeUndefined();
  });
});
