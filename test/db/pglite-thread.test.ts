/**
 * The embedded database on a thread of its own (src/db/pglite-thread.ts, issue 41 M5): while a
 * heavy statement runs, the server's thread still answers /healthz and another workspace's cached
 * redirect; answers and errors are PGlite's own. The first part runs on both engines (PostgreSQL
 * runs statements in its own processes anyway); the rest is PGlite's.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isDatabaseUnavailable, openPglite, rows, type Database } from '../../src/db/connect.js';
import { migratedPglite } from '../helpers/migrated-pglite.js';
import { isUniqueViolation } from '../../src/core/transaction.js';
import { bearer, onPostgres, startTestApp, type TestApp } from '../helpers/app.js';
import { answered } from '../helpers/wait.js';

/** One statement that keeps the engine busy (CPU, as an export's or an analytics CSV's): about a second on PGlite. */
const HEAVY = sql`SELECT sum(length(md5(g::text))) AS n FROM generate_series(1, 400000) g`;

describe('a heavy statement and the other requests', () => {
  let app: TestApp;
  let linkPath: string;

  beforeAll(async () => {
    app = await startTestApp();
    const other = await app.workspace();
    const post = (url: string, body: unknown) =>
      app.inject({ method: 'POST', url, headers: { ...bearer(other.key), 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    const col = await post('/api/collections', [{ name: 'Other' }]);
    expect(col.statusCode, col.body).toBe(201);
    const link = await post('/api/links', [{ url: 'https://shop.example/other', collectionId: col.json<{ id: string }[]>()[0]!.id }]);
    expect(link.statusCode, link.body).toBe(201);
    linkPath = new URL(link.json<{ shortUrl: string }[]>()[0]!.shortUrl).pathname;
  });
  afterAll(() => app?.close());

  const visit = () => app.inject({ method: 'GET', url: linkPath, headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0' } });

  test('/healthz and a cached redirect of another workspace are answered before the heavy statement ends', async () => {
    // Served once: the link is in the redirect's cache, so answering it needs no statement.
    expect((await visit()).statusCode).toBe(302);

    const done: string[] = [];
    const heavy = rows<{ n: number }>(app.database.db, HEAVY).then((r) => {
      done.push('heavy');
      return r;
    });
    // The heavy statement is on its way (on the server's thread it would run to its end first).
    await new Promise((resolve) => setImmediate(resolve));
    const health = await answered('/healthz', 30_000, app.inject({ method: 'GET', url: '/healthz' }));
    done.push('healthz');
    const redirect = await answered('the cached redirect', 30_000, visit());
    done.push('redirect');
    await answered('the heavy statement', 60_000, heavy);

    expect(health.statusCode).toBe(200);
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toMatch(/^https:\/\/shop\.example\/other/);
    expect(done).toEqual(['healthz', 'redirect', 'heavy']);
  });
});

describe.runIf(!onPostgres)('PGlite on its thread', () => {
  let database: Database;

  beforeAll(async () => {
    database = await migratedPglite();
    await database.withSession((s) => s.exec('CREATE TABLE t (id int PRIMARY KEY, at timestamptz, n int8, b bytea, j jsonb, a text[])'));
  });
  afterAll(() => database?.close());

  test("answers as PGlite parses them: Dates, int8 as numbers, bytes, JSON, arrays (drizzle's timestamps as text)", async () => {
    const at = new Date('2026-03-01T12:34:56.789Z');
    await database.withSession((s) =>
      s.query('INSERT INTO t VALUES (1, $1, 9007199254740991, $2, $3, $4)', [at, new Uint8Array([0, 1, 255]), { k: [1, 'x'] }, ['a', 'b']]),
    );
    const [raw] = await database.withSession((s) => s.query('SELECT at, n, b, j, a FROM t WHERE id = 1'));
    expect(raw).toEqual({ at, n: 9007199254740991, b: new Uint8Array([0, 1, 255]), j: { k: [1, 'x'] }, a: ['a', 'b'] });
    // drizzle asks for timestamps untouched (its parsers), and gets the text.
    const [viaDrizzle] = await rows<{ at: string }>(database.db, sql`SELECT at FROM t WHERE id = 1`);
    expect(viaDrizzle!.at).toBe('2026-03-01 12:34:56.789+00');
  });

  test('errors keep their code, constraint and detail; a failed transaction is rolled back', async () => {
    const err = await database.db.execute(sql`INSERT INTO t (id) VALUES (1)`).catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    const cause = (err as { cause: { constraint: string; detail: string; message: string } }).cause;
    expect(cause).toMatchObject({ constraint: 't_pkey', detail: 'Key (id)=(1) already exists.' });
    expect(cause.message).toMatch(/duplicate key/);

    const failed = database.db.transaction(async (tx) => {
      await tx.execute(sql`INSERT INTO t (id) VALUES (2)`);
      await tx.transaction(async (inner) => inner.execute(sql`INSERT INTO t (id) VALUES (3)`));
      throw new Error('changed my mind');
    });
    await expect(failed).rejects.toThrow('changed my mind');
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`INSERT INTO t (id) VALUES (4)`);
      await tx.transaction(async (inner) => inner.execute(sql`INSERT INTO t (id) VALUES (5)`)).catch(() => undefined);
    });
    expect(await rows<{ id: number }>(database.db, sql`SELECT id FROM t ORDER BY id`)).toEqual([{ id: 1 }, { id: 4 }, { id: 5 }]);
  });

  test('a dump starts another database with the same rows', async () => {
    const copy = await openPglite('memory://', await database.pglite!.dumpDataDir('none'));
    try {
      expect(await rows<{ id: number }>(copy.db, sql`SELECT id FROM t ORDER BY id`)).toEqual([{ id: 1 }, { id: 4 }, { id: 5 }]);
    } finally {
      await copy.close();
    }
  });

  test('once its thread is gone, a statement fails as "database unavailable" (a 503), at once', async () => {
    const gone = await migratedPglite();
    await gone.close();
    const err = await answered(
      'a statement on a closed database',
      5_000,
      gone.ping().catch((e: unknown) => e),
    );
    expect(isDatabaseUnavailable(err)).toBe(true);
  });
});
