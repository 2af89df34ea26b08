/**
 * Migration 0011 on a populated clicks table: on PostgreSQL the table becomes monthly range
 * partitions with every row, seq and index kept; on PGlite it stays one table. Either way the
 * analytics answers are those of the clicks written before it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Database } from '../../src/db/connect.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import type { RawClick } from '../../src/modules/clicks/record.js';
import { storeClicks } from '../../src/modules/clicks/store.js';
import { bearer, onPostgres, startTestApp, type TestApp } from '../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../helpers/fresh-database.js';
import { DESKTOP, IPHONE } from '../helpers/visitors.js';

const BOT = 'Googlebot/2.1 (+http://www.google.com/bot.html)';
const COUNTRIES = ['GB', 'DE', 'US', 'FR'];
const noLookup = () => undefined;

const query = <T = Record<string, unknown>>(db: Database, text: string, params?: unknown[]) => db.withSession((s) => s.query<T>(text, params));

/** Everything analytics reads, exactly (timestamps as UTC text: microseconds and all). */
async function snapshot(db: Database) {
  return {
    clicks: await query(
      db,
      `SELECT id, workspace_id, link_id, partner_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS created_at,
              country, device, browser, os, referrer, referrer_url, bot, seq, utm_source, utm_medium, utm_campaign, utm_term, utm_content, trigger
       FROM clicks ORDER BY seq`,
    ),
    rollups: await query(
      db,
      `SELECT workspace_id, scope_id, dim, level, bucket::text AS bucket, value, partner_id, slot, clicks, leads, sales, amount::text AS amount
       FROM analytics_rollups ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`,
    ),
  };
}

async function indexes(db: Database): Promise<string[]> {
  const rows = await query<{ def: string }>(db, `SELECT indexdef AS def FROM pg_indexes WHERE tablename = 'clicks' ORDER BY indexname`);
  // A partitioned table's indexes read "ON ONLY clicks": they cascade to each partition.
  return rows.map((r) => r.def.replace(' ON ONLY ', ' ON '));
}

let database: Database;
let t: TestApp | undefined;
const workspaceId = randomUUID();
const links = [randomUUID(), randomUUID(), randomUUID()];
const partner = randomUUID();
const written: RawClick[] = [];
let before: Awaited<ReturnType<typeof snapshot>>;
let indexesBefore: string[];
let serverNow: Date;

beforeAll(async () => {
  database = await freshDatabase();
  const all = await loadMigrations();
  // Every migration but 0011: the clicks below are written by today's click writer, which needs
  // the later ones (0012: hot links' urls_from); none of them touches `clicks`.
  const all0011 = all.filter((m) => m.name.startsWith('0011'));
  expect(all0011.map((m) => m.name)).toEqual(['0011_clicks_partitioned.sql']);
  await migrate(
    database,
    all.filter((m) => !m.name.startsWith('0011')),
  );
  await query(database, `INSERT INTO workspaces (id, name, plan) VALUES ($1, 'before partitions', 'enterprise')`, [workspaceId]);
  // Six past months, two clicks sharing one instant (their order is their seq), bots, partners.
  let n = 0;
  for (let month = 0; month < 6; month++) {
    const batch: RawClick[] = [];
    for (let i = 0; i < 40; i++, n++) {
      batch.push({
        id: randomUUID(),
        workspaceId,
        linkId: links[n % 3]!,
        partnerId: n % 5 === 0 ? partner : null,
        at: Date.UTC(2025, month, 1 + (i % 28), i % 24, i),
        ip: '127.0.0.1',
        userAgent: n % 7 === 0 ? BOT : n % 2 ? IPHONE : DESKTOP,
        referer: n % 3 ? `https://r${n % 4}.example/` : undefined,
        country: COUNTRIES[n % 4],
      });
    }
    await storeClicks(database, batch, noLookup);
    written.push(...batch);
  }
  const tie = Date.UTC(2025, 2, 31, 23, 59, 59, 999);
  for (const id of [randomUUID(), randomUUID()]) {
    const click = { id, workspaceId, linkId: links[0]!, partnerId: null, at: tie, ip: '127.0.0.1', userAgent: DESKTOP, referer: undefined, country: 'GB' };
    await storeClicks(database, [click], noLookup);
    written.push(click);
  }
  before = await snapshot(database);
  indexesBefore = await indexes(database);
  serverNow = (await query<{ now: Date }>(database, 'SELECT now()'))[0]!.now;
  expect(await migrate(database)).toEqual(['0011_clicks_partitioned.sql']);
  // 0011 ran here after the later migrations (this test's order, never a real one) and rebuilt
  // clicks with the columns and indexes of its day: the click columns of 0021 come back as 0021
  // adds them, the index of 0040 as 0040 makes it.
  await query(
    database,
    `ALTER TABLE clicks ADD COLUMN IF NOT EXISTS region text, ADD COLUMN IF NOT EXISTS city text,
    ADD COLUMN IF NOT EXISTS visitor_flags smallint NOT NULL DEFAULT 0`,
  );
  await query(database, all.find((m) => m.name.startsWith('0040'))!.sql);
  // …and the A/B test's columns and index of 0051 as it makes them.
  await query(database, 'ALTER TABLE clicks ADD COLUMN IF NOT EXISTS test_id uuid, ADD COLUMN IF NOT EXISTS variant smallint');
  await query(database, 'CREATE INDEX IF NOT EXISTS clicks_test_idx ON clicks (test_id, variant) WHERE test_id IS NOT NULL');
});

afterAll(async () => {
  await t?.close();
  await dropFreshDatabases();
});

describe('migration 0011 on a populated clicks table', () => {
  test('every row is kept exactly, seq included, and the rollups are untouched', async () => {
    expect(before.clicks).toHaveLength(written.length);
    expect(await snapshot(database)).toEqual(before);
  });

  test('the primary key and the five partial indexes are the same', async () => {
    expect(indexesBefore).toHaveLength(6);
    expect(await indexes(database)).toEqual(indexesBefore);
  });

  test.runIf(onPostgres)('PostgreSQL: clicks is range-partitioned by created_at, one partition per month with rows, the next months, a default', async () => {
    const [key] = await query<{ strategy: string; column: string }>(
      database,
      `SELECT p.partstrat AS strategy, a.attname AS column FROM pg_partitioned_table p
       JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0] WHERE p.partrelid = 'clicks'::regclass`,
    );
    expect(key).toEqual({ strategy: 'r', column: 'created_at' });
    const month = (at: Date, k = 0) => {
      const d = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + k, 1));
      return `clicks_p${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
    };
    const expected = new Set([...written.map((c) => month(new Date(c.at))), month(serverNow), month(serverNow, 1), month(serverNow, 2), 'clicks_default']);
    const parts = await query<{ name: string; bound: string }>(
      database,
      `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'clicks'::regclass`,
    );
    expect(new Set(parts.map((p) => p.name))).toEqual(expected);
    expect(parts.find((p) => p.name === 'clicks_default')?.bound).toBe('DEFAULT');
    expect(parts.find((p) => p.name === 'clicks_p2025_03')?.bound).toMatch(/^FOR VALUES FROM \('2025-03-01 00:00:00\+00'\) TO \('2025-04-01 00:00:00\+00'\)$/);

    // Each row sits in its month's partition; each partition carries the six indexes.
    const placed = await query<{ part: string; n: number }>(database, `SELECT tableoid::regclass::text AS part, count(*)::int AS n FROM clicks GROUP BY 1`);
    const byMonth = new Map<string, number>();
    for (const c of written) byMonth.set(month(new Date(c.at)), (byMonth.get(month(new Date(c.at))) ?? 0) + 1);
    expect(new Map(placed.map((p) => [p.part, p.n]))).toEqual(byMonth);
    const perPartition = await query<{ n: number }>(
      database,
      `SELECT count(x.indexrelid)::int AS n FROM pg_inherits i LEFT JOIN pg_index x ON x.indrelid = i.inhrelid
       WHERE i.inhparent = 'clicks'::regclass GROUP BY i.inhrelid`,
    );
    expect(perPartition.map((p) => p.n)).toEqual(parts.map(() => 6));
  });

  test.runIf(!onPostgres)('PGlite: clicks stays one table', async () => {
    expect(await query(database, `SELECT 1 FROM pg_partitioned_table`)).toEqual([]);
    expect(await query(database, `SELECT 1 FROM pg_inherits`)).toEqual([]);
  });

  test('a click written after the migration comes after every earlier one in seq', async () => {
    const maxBefore = Math.max(...before.clicks.map((c) => Number(c.seq)));
    const id = randomUUID();
    // Another workspace's: the rollups count it, and the analytics answers below are W's.
    await storeClicks(
      database,
      [
        {
          id,
          workspaceId: randomUUID(),
          linkId: links[1]!,
          partnerId: null,
          at: Date.UTC(2025, 0, 1),
          ip: '127.0.0.1',
          userAgent: DESKTOP,
          referer: undefined,
          country: 'GB',
        },
      ],
      noLookup,
    );
    const [row] = await query<{ seq: number }>(database, `SELECT seq FROM clicks WHERE id = $1`, [id]);
    expect(Number(row!.seq)).toBeGreaterThan(maxBefore);
  });

  test('GET /api/analytics answers from the migrated table as from the clicks written', async () => {
    t = await startTestApp({ database });
    const key = (await t.admin('POST', `/workspaces/${workspaceId}/keys`, { name: 'after 0011', scopes: ['analyticsRead'] })).json<{ key: string }>().key;
    const get = async (qs: string) => {
      const res = await t!.inject({ method: 'GET', url: `/api/analytics?${qs}`, headers: bearer(key) });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<Record<string, unknown>[]>();
    };
    const humans = before.clicks
      .filter((c) => !c.bot)
      .sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)) || Number(a.seq) - Number(b.seq));
    // Oldest first, ties in insertion order: the keyset (created_at, seq) survived.
    const list = await get('take=5000&sort=asc');
    expect(list.map((c) => c.id)).toEqual(humans.map((c) => c.id));

    const countries = await get('groupBy=country&take=5000');
    const expected = new Map<string, number>();
    for (const c of humans) expected.set(String(c.country), (expected.get(String(c.country)) ?? 0) + 1);
    expect(new Map(countries.map((g) => [g.key, g.clicks]))).toEqual(expected);

    const months = await get('groupBy=timeseries&interval=month&take=5000');
    const perMonth = new Map<string, number>();
    for (const c of humans) perMonth.set(String(c.created_at).slice(0, 7), (perMonth.get(String(c.created_at).slice(0, 7)) ?? 0) + 1);
    expect(new Map(months.filter((g) => Number(g.clicks) > 0).map((g) => [new Date(String(g.key)).toISOString().slice(0, 7), g.clicks]))).toEqual(perMonth);
  });
});
