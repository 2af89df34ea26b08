/**
 * The reseal pass itself (modules/secrets): keyset batches of a fixed size, two statements a
 * batch, caches told which rows changed, and a value changed meanwhile never overwritten. On a
 * database of its own (a reseal walks every row); PGlite, and PostgreSQL with DATABASE_URL.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Sealer } from '../../../src/core/sealed.js';
import { SEALED_COLUMNS } from '../../../src/core/sealed-columns.js';
import { rows, type Database } from '../../../src/db/connect.js';
import { resealAll } from '../../../src/modules/secrets/service.js';
import { replaceSealed } from '../../../src/modules/secrets/store.js';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';

const A = 'secret-A-0123456789-0123456789-0123456789';
const B = 'secret-B-0123456789-0123456789-0123456789';
const linksColumn = SEALED_COLUMNS.find((c) => c.table === 'links')!;

let database: Database;
let t: TestApp;
let linkIds: string[];

beforeAll(async () => {
  database = await freshDatabase();
  t = await startTestApp({ env: { SECRET: A }, database });
  const ws = await t.workspace({ plan: 'pro' });
  const collection = await t.inject({ method: 'POST', url: '/api/collections', headers: bearer(ws.key), payload: [{ name: 'c' }] });
  const collectionId = collection.json<{ id: string }[]>()[0]!.id;
  const made = await t.inject({
    method: 'POST',
    url: '/api/links',
    headers: bearer(ws.key),
    payload: [1, 2, 3, 4, 5]
      .map((i) => ({ url: `https://vault.example/${i}`, collectionId, password: `pw-${i}` }))
      .concat([{ url: 'https://open.example/', collectionId } as never]),
  });
  expect(made.statusCode, made.body).toBe(201);
  linkIds = made
    .json<{ id: string; password: string | null }[]>()
    .filter((l) => l.password)
    .map((l) => l.id);
}, 180_000);

afterAll(async () => {
  await t?.close();
  await dropFreshDatabases();
});

/** The same connection, counting the statements sent through it. */
function counting(db: Database['db']): { db: Database['db']; statements: () => number } {
  let n = 0;
  const proxy = new Proxy(db, {
    get(target, prop, receiver) {
      if (prop !== 'execute') return Reflect.get(target, prop, receiver) as unknown;
      return (query: Parameters<typeof target.execute>[0]) => {
        n++;
        return target.execute(query);
      };
    },
  });
  return { db: proxy, statements: () => n };
}

describe('resealAll', () => {
  test('batches of 2 over 5 sealed passwords: every one moved, two statements a batch (one for an empty column), caches told each id once', async () => {
    const conn = counting(database.db);
    const told: string[] = [];
    const report = await resealAll({
      ctx: { db: conn.db, now: new Date() },
      deps: { sealer: new Sealer(B, A), batchSize: 2, changed: (table, ids) => void told.push(...ids.map((id) => `${table}:${id}`)) },
    });
    expect(report.find((c) => c.column === 'password_sealed')).toMatchObject({ sealed: 5, resealed: 5, unopenable: 0 });
    // Batches [2, 2, 1]: a read and a write each; every other (empty) column: one read each.
    expect(conn.statements()).toBe(3 * 2 + (SEALED_COLUMNS.length - 1));
    expect(told.sort()).toEqual(linkIds.map((id) => `links:${id}`).sort());
    const values = await rows<{ sealed: string }>(database.db, sql`SELECT password_sealed AS sealed FROM links WHERE password_sealed IS NOT NULL`);
    expect(values).toHaveLength(5);
    for (const { sealed } of values) expect(new Sealer(B).needsReseal('link-password', sealed)).toBe(false);

    // Nothing left to move: one read per column, no write, nobody told.
    const again = counting(database.db);
    const second = await resealAll({
      ctx: { db: again.db, now: new Date() },
      deps: { sealer: new Sealer(B, A), batchSize: 2, changed: () => void told.push('again') },
    });
    expect(second.map((c) => c.resealed)).toEqual(SEALED_COLUMNS.map(() => 0));
    expect(again.statements()).toBe(3 + (SEALED_COLUMNS.length - 1));
    expect(told).not.toContain('again');
  });

  test('a value changed since it was read is left as it is (the write names the old value)', async () => {
    const [row] = await rows<{ sealed: string }>(database.db, sql`SELECT password_sealed AS sealed FROM links WHERE id = ${linkIds[0]!}::uuid`);
    const written = await replaceSealed(database.db, linksColumn, [{ id: linkIds[0]!, old: 'not what it holds', sealed: 'would overwrite' }]);
    expect(written).toEqual([]);
    const [after] = await rows<{ sealed: string }>(database.db, sql`SELECT password_sealed AS sealed FROM links WHERE id = ${linkIds[0]!}::uuid`);
    expect(after!.sealed).toBe(row!.sealed);
  });
});
