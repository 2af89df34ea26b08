/**
 * The clicks partition job: monthly partitions made ahead and a default one (PostgreSQL),
 * CLICK_RETENTION_MONTHS dropping whole old months (PostgreSQL) or deleting old rows (PGlite),
 * by the database's clock, the rollups keeping every count. Each PostgreSQL test database is its
 * own: retention drops tables.
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Database } from '../../../src/db/connect.js';
import { monthStart, partitionName, retentionCutoff } from '../../../src/modules/clicks/partitions.js';
import type { RawClick } from '../../../src/modules/clicks/record.js';
import { maintainClickPartitions, storeClicks } from '../../../src/modules/clicks/store.js';
import { onPostgres, startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { dropFreshDatabases, freshPostgresUrl, openAgain } from '../../helpers/fresh-database.js';
import { DESKTOP } from '../../helpers/visitors.js';
import { within } from '../../helpers/wait.js';

const BOT = 'Googlebot/2.1 (+http://www.google.com/bot.html)';
const COUNTRIES = ['GB', 'DE', 'US'];
const noLookup = () => undefined;
const quiet = pino({ level: 'silent' });

/** A logger whose lines the test reads. */
function recordingLogger() {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  return { lines, log: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }) };
}

const query = <T = Record<string, unknown>>(db: Database, text: string, params?: unknown[]) => db.withSession((s) => s.query<T>(text, params));
/** The database's clock, which retention goes by. */
const databaseNow = async (db: Database) => new Date((await query<{ ms: number }>(db, `SELECT (extract(epoch FROM now()) * 1000)::float8 AS ms`))[0]!.ms);

/** A workspace with one link, used over HTTP, and a click writer for it. */
async function workspaceWithLink(t: TestApp) {
  const { ws, send, collectionId } = await workspaceWithCollection(t);
  const res = await send('POST', '/api/links', [{ url: 'https://example.com/', collectionId }]);
  expect(res.statusCode, res.body).toBe(201);
  const linkId = res.json<{ id: string }[]>()[0]!.id;
  const click = (at: string | number, o: { bot?: boolean; country?: string } = {}): RawClick => ({
    id: randomUUID(),
    workspaceId: ws.id,
    linkId,
    partnerId: null,
    at: new Date(at).getTime(),
    ip: '127.0.0.1',
    userAgent: o.bot ? BOT : DESKTOP,
    referer: undefined,
    country: o.country ?? 'GB',
  });
  const analytics = async (qs: string) => {
    const r = await send('GET', `/api/analytics?${qs}`);
    expect(r.statusCode, r.body).toBe(200);
    return r.json<Record<string, unknown>[]>();
  };
  return { ws, send, linkId, click, analytics };
}

/** The clicks per country the rollups hold for a workspace, over all time. */
async function rollupCountries(db: Database, workspaceId: string): Promise<Map<string, number>> {
  const rows = await query<{ key: string; clicks: number }>(
    db,
    `SELECT value AS key, sum(clicks)::int AS clicks FROM analytics_rollups
     WHERE workspace_id = $1 AND scope_id = $1 AND dim = 'country' AND level = 'd' GROUP BY value`,
    [workspaceId],
  );
  return new Map(rows.map((r) => [r.key, r.clicks]));
}

afterAll(() => dropFreshDatabases());

describe('retentionCutoff', () => {
  test('the start of the month N months before the current one: whole months older than N are past it', () => {
    expect(retentionCutoff(new Date('2030-05-31T23:59:59Z'), 3).toISOString()).toBe('2030-02-01T00:00:00.000Z');
    expect(retentionCutoff(new Date('2030-05-01T00:00:00Z'), 3).toISOString()).toBe('2030-02-01T00:00:00.000Z');
    expect(retentionCutoff(new Date('2030-01-15T00:00:00Z'), 1).toISOString()).toBe('2029-12-01T00:00:00.000Z');
    expect(retentionCutoff(new Date('2030-01-15T00:00:00Z'), 25).toISOString()).toBe('2027-12-01T00:00:00.000Z');
  });
});

describe.runIf(onPostgres)('clicks partitions on PostgreSQL', () => {
  let url: string;
  let database: Database;
  let t: TestApp;

  /** Partitions of clicks and their bounds (UTC), by name. */
  const partitions = async (db = database) =>
    new Map(
      (
        await db.withSession(async (s) => {
          await s.exec(`SET TimeZone = 'UTC'`);
          return s.query<{ name: string; bound: string }>(
            `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'clicks'::regclass`,
          );
        })
      ).map((p) => [p.name, p.bound]),
    );
  const whereIs = async (id: string) =>
    (await query<{ part: string; seq: number }>(database, `SELECT tableoid::regclass::text AS part, seq FROM clicks WHERE id = $1`, [id]))[0];

  beforeAll(async () => {
    url = await freshPostgresUrl();
    database = await openAgain(url);
    t = await startTestApp({ database });
  });
  afterAll(() => t.close());

  test('the job makes the current month and the next two ready, bounded by UTC months; a second run changes nothing', async () => {
    const now = new Date('2031-05-10T12:00:00Z');
    const { lines, log } = recordingLogger();
    const first = await maintainClickPartitions(database, now, undefined, log);
    expect(first).toEqual({ partitioned: true, created: ['clicks_p2031_05', 'clicks_p2031_06', 'clicks_p2031_07'], moved: 0, dropped: [], deleted: 0 });
    expect(lines.find((l) => l.msg === 'created clicks partitions')).toMatchObject({ level: 30, created: first.created });

    const [table] = await query<{ strategy: string }>(database, `SELECT partstrat AS strategy FROM pg_partitioned_table WHERE partrelid = 'clicks'::regclass`);
    expect(table).toEqual({ strategy: 'r' });
    const parts = await partitions();
    expect(parts.get('clicks_p2031_05')).toBe("FOR VALUES FROM ('2031-05-01 00:00:00+00') TO ('2031-06-01 00:00:00+00')");
    expect(parts.get('clicks_p2031_07')).toBe("FOR VALUES FROM ('2031-07-01 00:00:00+00') TO ('2031-08-01 00:00:00+00')");
    expect(parts.get('clicks_default')).toBe('DEFAULT');

    expect(await maintainClickPartitions(database, now, undefined, log)).toEqual({ partitioned: true, created: [], moved: 0, dropped: [], deleted: 0 });
    expect(await partitions()).toEqual(parts);
  });

  test('two instances running the job at once: both succeed, each partition is made once', async () => {
    const [a, b] = [await openAgain(url), await openAgain(url)];
    const now = new Date('2032-01-31T23:59:59Z');
    const reports = await Promise.all([a, b, a, b].map((db) => maintainClickPartitions(db, now, undefined, quiet)));
    expect(reports.flatMap((r) => r.created).sort()).toEqual(['clicks_p2032_01', 'clicks_p2032_02', 'clicks_p2032_03']);
    const parts = await partitions();
    expect(['clicks_p2032_01', 'clicks_p2032_02', 'clicks_p2032_03'].every((p) => parts.has(p))).toBe(true);
  });

  test('a click stamped far ahead lands in the default partition; when its month is made it moves there, seq and all', async () => {
    const { click, analytics } = await workspaceWithLink(t);
    const ahead = click('2045-03-03T10:00:00Z', { country: 'DE' });
    await storeClicks(database, [ahead], noLookup);
    const before = await whereIs(ahead.id);
    expect(before?.part).toBe('clicks_default');
    const listed = await analytics(`id=${ahead.id}`);
    expect(listed).toHaveLength(1);

    const report = await maintainClickPartitions(database, new Date('2045-02-15T00:00:00Z'), undefined, quiet);
    expect(report.created).toEqual(['clicks_p2045_02', 'clicks_p2045_03', 'clicks_p2045_04']);
    expect(report.moved).toBe(1);
    expect(await whereIs(ahead.id)).toEqual({ part: 'clicks_p2045_03', seq: before!.seq });
    expect(await analytics(`id=${ahead.id}`)).toEqual(listed);
  });

  test("retention drops the months past CLICK_RETENTION_MONTHS by the database's clock and no others; the rollups keep their counts", async () => {
    const { ws, send, click, analytics } = await workspaceWithLink(t);
    // The six months to the database's current one (the last), their partitions made.
    const now = await databaseNow(database);
    const first = monthStart(now, -5);
    for (const at of [first, monthStart(now, -2)]) await maintainClickPartitions(database, at, undefined, quiet);
    const byMonth = new Map<number, RawClick[]>();
    for (let month = 0; month < 6; month++) {
      const start = monthStart(first, month).getTime();
      const batch = Array.from({ length: 30 }, (_, i) =>
        click(Math.min(start + (i % 28) * 86_400_000 + (i % 24) * 3_600_000, now.getTime() - 30 + i), {
          bot: i % 10 === 0,
          country: COUNTRIES[(i + month) % 3],
        }),
      );
      await storeClicks(database, batch, noLookup);
      byMonth.set(month, batch);
    }
    // A late click of a month that has no partition: in the default one, and past retention too.
    const stray = click(monthStart(now, -12).getTime() + 14 * 86_400_000, { country: 'FR' });
    await storeClicks(database, [stray], noLookup);
    expect((await whereIs(stray.id))?.part).toBe('clicks_default');

    const countriesBefore = await analytics('groupBy=country');
    expect(countriesBefore.length).toBe(4);
    const rollupsBefore = await rollupCountries(database, ws.id);
    expect(rollupsBefore).toEqual(new Map(countriesBefore.map((g) => [g.key, g.clicks])));

    const cutoff = retentionCutoff(now, 3);
    expect(cutoff).toEqual(monthStart(first, 2));
    const old = [...(await partitions()).keys()].filter((p) => /^clicks_p\d{4}_\d{2}$/.test(p) && p < partitionName(cutoff)).sort();
    expect(old).toEqual(expect.arrayContaining([partitionName(first), partitionName(monthStart(first, 1))]));

    // A run by a clock years ahead: the partitions it makes wait for their months, retention goes by the database's clock.
    const { lines, log } = recordingLogger();
    const report = await maintainClickPartitions(database, new Date('2044-12-15T00:00:00Z'), 3, log);
    expect(report.dropped).toEqual(old);
    expect(report.deleted).toBe(1); // the stray click in the default partition
    const after = await partitions();
    for (const p of old) expect(after.has(p)).toBe(false);
    for (const p of [...[2, 3, 4, 5].map((m) => partitionName(monthStart(first, m))), 'clicks_p2044_12', 'clicks_p2045_03', 'clicks_default']) {
      expect(after.has(p), p).toBe(true);
    }
    expect(await query(database, `SELECT to_regclass('${partitionName(first)}') AS t`)).toEqual([{ t: null }]);
    const dropLines = lines.filter((l) => l.msg === 'dropped a month of clicks past CLICK_RETENTION_MONTHS');
    expect(dropLines.map((l) => l.partition)).toEqual(old);
    expect(dropLines.every((l) => l.level === 30)).toBe(true);
    expect(dropLines.find((l) => l.partition === partitionName(first))).toMatchObject({ month: first.toISOString().slice(0, 7) });

    // Raw clicks of the dropped months are gone from the list and from tracking…
    const kept = [2, 3, 4, 5].flatMap((m) => byMonth.get(m)!.filter((c) => c.userAgent !== BOT)).sort((a, b) => a.at - b.at);
    const listed = await analytics(`startDate=${monthStart(now, -13).toISOString().slice(0, 10)}&endDate=${now.toISOString().slice(0, 10)}&take=5000&sort=asc`);
    expect(listed.map((c) => c.id)).toEqual(kept.map((c) => c.id));
    const dropped = byMonth.get(0)!.find((c) => c.userAgent !== BOT)!;
    expect(await analytics(`id=${dropped.id}`)).toEqual([]);
    const lead = (clickId: string) =>
      send('POST', '/api/track/lead', { clickId, eventName: 'Sign up', customerExternalId: `c-${clickId}`, customerName: 'Ada' });
    const refused = await lead(dropped.id);
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().error.en).toBe('Invalid clickId: is not a click of a link in this workspace.');
    expect((await lead(kept[0]!.id)).statusCode).toBe(200);
    // …and the far-future click in the default partition is not past retention.
    expect(await query(database, `SELECT count(*)::int AS n FROM clicks_default`)).toEqual([{ n: 0 }]);
    expect((await query(database, `SELECT count(*)::int AS n FROM clicks WHERE created_at >= '2045-01-01'`))[0]).toEqual({ n: 1 });

    // …while the rollups still count every click of the dropped months, and analytics answers from them.
    // (clicks only: the lead above added a lead to its country)
    expect(await rollupCountries(database, ws.id)).toEqual(rollupsBefore);
    const countriesAfter = await analytics('groupBy=country');
    expect(new Map(countriesAfter.map((g) => [g.key, g.clicks]))).toEqual(new Map(countriesBefore.map((g) => [g.key, g.clicks])));
    // A second run finds nothing more to drop.
    expect(await maintainClickPartitions(database, new Date('2044-12-15T00:00:00Z'), 3, quiet)).toMatchObject({ created: [], dropped: [], deleted: 0 });
  });

  test('the service runs the job at start with CLICK_RETENTION_MONTHS from its configuration', async () => {
    const now = await databaseNow(database);
    const ahead = monthStart(now, 4);
    const clock = () => new Date(ahead.getTime() + 9 * 86_400_000);
    const second = await startTestApp({ database: await openAgain(url), clock, env: { CLICK_RETENTION_MONTHS: '1' }, scheduledMaintenance: true });
    try {
      // Cutoff the database's last month: the months before it go; its clock's month and the next two are made.
      const lastMonth = partitionName(monthStart(now, -1));
      const done = await within(45_000, async () => {
        const parts = await partitions();
        return !parts.has(partitionName(monthStart(now, -2))) && parts.has(partitionName(monthStart(ahead, 2)));
      });
      expect(done).toBe(true);
      const parts = await partitions();
      const kept = [lastMonth, partitionName(monthStart(now)), ...[0, 1, 2].map((m) => partitionName(monthStart(ahead, m))), 'clicks_p2045_03'];
      expect(kept.filter((p) => !parts.has(p))).toEqual([]);
      expect([...parts.keys()].filter((p) => /^clicks_p\d{4}_\d{2}$/.test(p) && p < lastMonth)).toEqual([]);
    } finally {
      await second.close();
    }
  });
});

describe.runIf(!onPostgres)('click retention on PGlite (one table)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  test('without CLICK_RETENTION_MONTHS the job does nothing on PGlite', async () => {
    expect(await maintainClickPartitions(t.database, new Date(), undefined, quiet)).toEqual({
      partitioned: false,
      created: [],
      moved: 0,
      dropped: [],
      deleted: 0,
    });
  });

  test("retention deletes clicks of the whole months past it (by the database's clock) in batches, keeps the rest, and the rollups keep their counts", async () => {
    const { ws, click, analytics } = await workspaceWithLink(t);
    const now = await databaseNow(t.database);
    const at = (month: number, day: number, hour: number, minute: number) =>
      monthStart(now, month).getTime() + day * 86_400_000 + hour * 3_600_000 + minute * 60_000;
    // Retention 3: the database's fifth and fourth months back go, the three before its current one stay.
    const old = Array.from({ length: 12_001 }, (_, i) => click(at(-5 + (i % 2), i % 28, i % 24, i % 60), { country: COUNTRIES[i % 3], bot: i % 50 === 0 }));
    const kept = Array.from({ length: 90 }, (_, i) => click(at(-3 + (i % 3), i % 28, 0, i), { country: COUNTRIES[i % 3] }));
    for (let i = 0; i < old.length; i += 4000) await storeClicks(t.database, old.slice(i, i + 4000), noLookup);
    await storeClicks(t.database, kept, noLookup);
    const countriesBefore = await analytics('groupBy=country');
    const rollupsBefore = await rollupCountries(t.database, ws.id);
    expect(rollupsBefore).toEqual(new Map(countriesBefore.map((g) => [g.key, g.clicks])));

    const { lines, log } = recordingLogger();
    // With a clock years ahead: retention goes by the database's.
    const report = await maintainClickPartitions(t.database, new Date('2044-12-15T00:00:00Z'), 3, log);
    expect(report).toMatchObject({ partitioned: false, created: [], dropped: [] });
    expect(report.deleted).toBeGreaterThanOrEqual(old.length); // other tests' clicks of those months too
    expect(lines.find((l) => l.msg === 'deleted clicks past CLICK_RETENTION_MONTHS')).toMatchObject({ level: 30, before: monthStart(now, -3).toISOString() });

    const listed = await analytics('take=5000&sort=asc');
    expect(listed.map((c) => c.id)).toEqual([...kept].sort((a, b) => a.at - b.at).map((c) => c.id));
    expect(await analytics(`id=${old[1]!.id}`)).toEqual([]);
    expect(await rollupCountries(t.database, ws.id)).toEqual(rollupsBefore);
    expect(await analytics('groupBy=country')).toEqual(countriesBefore);
    expect((await maintainClickPartitions(t.database, now, 3, quiet)).deleted).toBe(0);
  });

  test("the service runs retention at start with CLICK_RETENTION_MONTHS from its configuration (by the database's clock, not its own)", async () => {
    const { click } = await workspaceWithLink(t);
    const lastMonth = monthStart(await databaseNow(t.database), -1).getTime();
    const [old, recent] = [click(lastMonth - 1000), click(lastMonth)];
    await storeClicks(t.database, [old, recent], noLookup);
    const second = await startTestApp({
      database: t.database,
      clock: () => new Date('2031-03-10T00:00:00Z'),
      env: { CLICK_RETENTION_MONTHS: '1' },
      scheduledMaintenance: true,
    });
    try {
      const ids = async () => (await query<{ id: string }>(t.database, `SELECT id FROM clicks WHERE id IN ($1, $2)`, [old.id, recent.id])).map((r) => r.id);
      expect(await within(15_000, async () => (await ids()).length === 1)).toBe(true);
      expect(await ids()).toEqual([recent.id]);
    } finally {
      await second.close();
    }
  });
});
