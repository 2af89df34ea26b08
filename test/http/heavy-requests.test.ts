/**
 * Issue 41 M1: one workspace's expensive requests (here GET /api/analytics, which reads clicks)
 * must not hold the connections every other workspace needs. They are bounded per workspace
 * (the excess answered 429 with Retry-After), run on a pool of their own, and a statement of
 * theirs past HEAVY_STATEMENT_TIMEOUT_SECONDS answers 503 query_timeout to its caller alone.
 *
 * Slow on purpose and deterministically: a transaction of the test holds an ACCESS EXCLUSIVE
 * lock on clicks, so every analytics read waits at the database while the links list (which
 * never reads clicks) does not. PostgreSQL only: PGlite has one connection and no statement
 * timeout; the gate's own arithmetic is tested below on every engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { LightMyRequestResponse } from 'fastify';
import { AppError } from '../../src/core/errors.js';
import { HEAVY_RUNNING_PER_WORKSPACE, HEAVY_WAITING_PER_WORKSPACE, HeavyGate } from '../../src/http/heavy-requests.js';

/** How many heavy requests of one workspace an instance admits (running or waiting). */
const ADMITTED = HEAVY_RUNNING_PER_WORKSPACE + HEAVY_WAITING_PER_WORKSPACE;
import { bearer, onPostgres, startTestApp, type TestApp } from '../helpers/app.js';
import { answered, within } from '../helpers/wait.js';

/** A transaction holding clicks locked until released; and how many backends wait on a lock of it. */
async function lockClicks() {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  await client.query('BEGIN; LOCK TABLE clicks IN ACCESS EXCLUSIVE MODE');
  return {
    // The activity view is read as of the transaction's first look unless its snapshot is cleared.
    waiting: async () =>
      (await client.query('SELECT pg_stat_clear_snapshot()')) &&
      Number(
        (
          await client.query<{ n: string }>(
            `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%clicks%'`,
          )
        ).rows[0]!.n,
      ),
    release: async () => {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}

const analytics = (t: TestApp, key: string) => t.inject({ method: 'GET', url: '/api/analytics?take=10', headers: bearer(key) });
const links = (t: TestApp, key: string) => t.inject({ method: 'GET', url: '/api/links?take=10', headers: bearer(key) });

describe.runIf(onPostgres)('expensive requests on PostgreSQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { HEAVY_STATEMENT_TIMEOUT_SECONDS: '1' } });
  });
  afterAll(async () => t?.close());

  it("a statement past the heavy timeout answers 503 query_timeout with Retry-After, and another workspace's next request 200 at once", async () => {
    const [a, b] = [await t.workspace(), await t.workspace()];
    const lock = await lockClicks();
    try {
      const res = await answered('the timed-out analytics read', 10_000, analytics(t, a.key));
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json().error.code).toBe('query_timeout');
      expect(res.json().error.ar).toMatch(/[\u0600-\u06FF]/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      // No shared "database unavailable" state: the other workspace (and A's own list) answer.
      expect((await links(t, b.key)).statusCode).toBe(200);
      expect((await links(t, a.key)).statusCode).toBe(200);
    } finally {
      await lock.release();
    }
  });

  it("while one workspace's analytics reads are held, another's links list completes, and the excess (10) is refused with 429 heavy_requests_busy", async () => {
    // The default heavy timeout (15 s): A's reads stay held by the lock for the whole test.
    const held = await startTestApp();
    const [a, b] = [await held.workspace(), await held.workspace()];
    const lock = await lockClicks();
    const settled: (LightMyRequestResponse | undefined)[] = [];
    let attack: Promise<LightMyRequestResponse[]> | undefined;
    try {
      attack = Promise.all(
        Array.from({ length: ADMITTED + 10 }, (_, i) =>
          analytics(held, a.key).then((res) => {
            settled[i] = res;
            return res;
          }),
        ),
      );
      // The first of A's reads wait at the database on the lock, the excess is answered at once.
      expect(await within(10_000, async () => (await lock.waiting()) >= 2)).toBe(true);
      expect(await within(10_000, async () => settled.filter(Boolean).length >= 10)).toBe(true);
      const other = await answered("the other workspace's list", 10_000, links(held, b.key));
      expect(other.statusCode, other.body).toBe(200);
      // B was answered while every admitted read of A was still in flight, held by the lock.
      expect(settled.filter(Boolean).length).toBe(10);
      const refused = settled.filter((r) => r?.statusCode === 429);
      expect(refused.length).toBe(10);
      for (const r of refused) {
        expect(r!.json().error.code).toBe('heavy_requests_busy');
        expect(Number(r!.headers['retry-after'])).toBeGreaterThan(0);
      }
    } finally {
      await lock.release();
      await attack;
      await held.close();
    }
    // Once the lock goes, every admitted read is answered.
    expect(settled.filter((r) => r?.statusCode === 200).length).toBe(ADMITTED);
  });
});

describe('the per-workspace gate', () => {
  it('lets 2 run and 8 wait per workspace, refuses the 11th with 429 heavy_requests_busy, and hands a freed slot to the next in line', async () => {
    const gate = new HeavyGate(2, 8);
    const running = [await gate.enter('a'), await gate.enter('a')];
    const order: number[] = [];
    const waiting = Array.from({ length: 8 }, (_, i) => gate.enter('a').then((release) => (order.push(i), release)));
    const refused = await gate.enter('a').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('heavy_requests_busy');
    expect((refused as AppError).extra.retryAfter).toBeGreaterThan(0);
    // Another workspace is not counted with the first.
    (await gate.enter('b'))();
    running[0]!();
    running[0]!(); // a second call frees nothing more
    const first = await waiting[0]!;
    expect(order).toEqual([0]);
    first();
    running[1]!();
    for (const w of waiting.slice(1)) (await w)();
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // Every slot came back: two run at once again.
    const again = [await gate.enter('a'), await gate.enter('a')];
    for (const release of again) release();
  });
});
