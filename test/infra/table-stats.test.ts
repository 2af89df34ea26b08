/**
 * Issue 41 H1: PGlite has no autovacuum (and a PostgreSQL may run without it), so the service
 * analyzes the tables its own bulk writes, imports and clicks make stale, and the periodic
 * maintenance analyzes whatever else is. Each app has a database of its own, so the statistics
 * read here are of these rows only.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { rows } from '../../src/db/connect.js';
import { bearer, onPostgres, startTestApp, type TestApp } from '../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../helpers/fresh-database.js';
import { within } from '../helpers/wait.js';
import { importClient } from '../modules/imports/job-helpers.js';

const apps: TestApp[] = [];
async function app(): Promise<TestApp> {
  const t = await startTestApp(onPostgres ? { database: await freshDatabase() } : {});
  apps.push(t);
  return t;
}

afterAll(async () => {
  for (const t of apps) await t.close();
  await dropFreshDatabases();
});

/** What the planner knows of `links`: the rows it counted at the last ANALYZE, and when that was. */
async function linkStats(t: TestApp): Promise<{ reltuples: number; lastAnalyze: Date | null }> {
  const [found] = await rows<{ reltuples: number; last_analyze: string | Date | null }>(
    t.database.db,
    sql`SELECT c.reltuples, s.last_analyze FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.oid = 'public.links'::regclass`,
  );
  return { reltuples: Number(found!.reltuples), lastAnalyze: found!.last_analyze === null ? null : new Date(found!.last_analyze) };
}

const items = (n: number, tag: string, collectionId?: string) =>
  Array.from({ length: n }, (_, i) => ({ url: `https://example.com/${tag}/${i}`, collectionId }));

describe('table statistics after our own writes', () => {
  it('a bulk write of 200 links is analyzed soon after it commits; a second one, within 30 s of that, by the periodic maintenance', async () => {
    const t = await app();
    const ws = await t.workspace();
    const collection = await t.inject({ method: 'POST', url: '/api/collections', headers: bearer(ws.key), payload: [{ name: 'c' }] });
    const collectionId = collection.json<{ id: string }[]>()[0]!.id;
    const post = (n: number, tag: string) => t.inject({ method: 'POST', url: '/api/links', headers: bearer(ws.key), payload: items(n, tag, collectionId) });
    const first = await post(200, 'a');
    expect(first.statusCode, first.body).toBe(201);
    const analyzed = await within(15_000, async () => (await linkStats(t)).reltuples === 200);
    expect(analyzed, JSON.stringify(await linkStats(t))).toBe(true);
    // The keeper runs at most every 30 s: this write waits, and the maintenance does not.
    expect((await post(150, 'b')).statusCode).toBe(201);
    expect((await linkStats(t)).reltuples).toBe(200);
    await t.runtime.maintain();
    expect((await linkStats(t)).reltuples).toBe(350);
  });

  it("an import's 300 rows are analyzed once its batches are written", async () => {
    const t = await app();
    const ws = await t.workspace();
    const c = importClient(t, ws);
    const csv = ['url', ...items(300, 'i').map((i) => i.url)].join('\n');
    expect(await c.run('source=csv&collection=imported', csv)).toMatchObject({ status: 'done', created: 300 });
    const analyzed = await within(15_000, async () => (await linkStats(t)).reltuples === 300);
    expect(analyzed, JSON.stringify(await linkStats(t))).toBe(true);
    expect((await linkStats(t)).lastAnalyze).not.toBeNull();
  });
});
