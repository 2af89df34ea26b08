/**
 * Places and visitors (operations.md §14 "Places", "Funnel") over HTTP.
 *
 * Places: a city database of the test's own (test/helpers/mmdb.ts: London for IP_GB, Nürnberg
 * for IP_DE, nothing for IP_US) given as GEOIP_CITY_DB: a click gets its region and city
 * ("<name>, <country code>"), groupBy=region|city and the region/city filters return them, for
 * the workspace (rollups) and a link (raw clicks; a hot link's rollups from its places_from on).
 * Trusted edge headers (REGION_HEADER, CITY_HEADER) win over the database; unconfigured, they are
 * ignored. GET /api/analytics/places names the database and the credit its licence asks for.
 *
 * Visitors: a hash of address and user agent under the day's salt; counted once per UTC day per
 * workspace and per link, in the group of the visitor's first click that day; two days are two
 * visitor-days, another user agent another visitor, bots none. No address is stored in any table,
 * and the clicks maintenance job deletes past days' salts and visitor days.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { clickMaintenanceJobs } from '../../../src/modules/clicks/service.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { buildMmdb } from '../../helpers/mmdb.js';
import { DESKTOP, IP_DE, IP_GB, IP_US, IPHONE } from '../../helpers/visitors.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const D = Math.floor(Date.now() / DAY) * DAY;
const BOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

let dir: string;
let t: TestApp;
let plain: TestApp;
let pinned: number | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lt-city-'));
  const file = join(dir, 'city.mmdb');
  writeFileSync(
    file,
    buildMmdb(
      [
        { cidr: '81.2.69.0/24', record: { country: { iso_code: 'GB' }, city: { names: { en: 'London' } }, subdivisions: [{ names: { en: 'England' } }] } },
        { cidr: '5.9.0.0/16', record: { country: { iso_code: 'DE' }, city: { names: { en: 'Nürnberg' } }, subdivisions: [{ names: { en: 'Bavaria' } }] } },
      ],
      { databaseType: 'DBIP-City-Lite', description: 'dbip.com IP to City Lite' },
    ),
  );
  const clock = () => new Date(pinned ?? Date.now());
  // Databases of their own: on the shared PostgreSQL test database another file's app runs the
  // same maintenance job, which would delete the past salts this file counts before it does.
  t = await startTestApp({
    clock,
    database: await freshDatabase(),
    env: { GEOIP_CITY_DB: file, COUNTRY_HEADER: 'cf-ipcountry', REGION_HEADER: 'cf-region', CITY_HEADER: 'cf-ipcity' },
  });
  plain = await startTestApp({ clock, database: await freshDatabase() });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await plain?.close();
  await dropFreshDatabases();
  rmSync(dir, { recursive: true, force: true });
});

interface Group {
  key: string;
  clicks: number;
  visitors: number;
}

async function setUp(app: TestApp) {
  const { send, collectionId } = await workspaceWithCollection(app);
  const res = await send('POST', '/api/links', [
    { url: 'https://shop.example/1', collectionId },
    { url: 'https://shop.example/2', collectionId },
  ]);
  expect(res.statusCode, res.body).toBe(201);
  const [l1, l2] = res.json<{ id: string; shortUrl: string }[]>() as [{ id: string; shortUrl: string }, { id: string; shortUrl: string }];
  let last: string | undefined;
  const click = async (link: { shortUrl: string }, ip: string, at: number, ua = DESKTOP, headers: Record<string, string> = {}) => {
    pinned = at;
    try {
      const r = await app.inject({ method: 'GET', url: new URL(link.shortUrl).pathname, remoteAddress: ip, headers: { 'user-agent': ua, ...headers } });
      expect(r.statusCode, r.body).toBe(302);
      last = new URL(r.headers.location as string).searchParams.get('ltid') ?? undefined;
    } finally {
      pinned = undefined;
    }
  };
  /** Clicks are written in batches: a lead on the last one has every click queued so far written first. */
  const settle = async () => {
    const r = await send('POST', '/api/track/lead', { clickId: last, eventName: 'Sign up', customerExternalId: `c-${last}`, customerName: 'C' });
    expect(r.statusCode, r.body).toBe(200);
  };
  const groups = async (query: string): Promise<Group[]> => {
    const r = await send('GET', `/api/analytics?take=5000&${query}`);
    expect(r.statusCode, r.body).toBe(200);
    // In key order: ties in clicks are ordered by key, in the database's collation.
    return r
      .json<Group[]>()
      .map(({ key, clicks, visitors }) => ({ key, clicks, visitors }))
      .sort((a, b) => (query.includes('timeseries') ? 0 : a.key < b.key ? -1 : 1));
  };
  return { send, l1, l2, click, settle, groups };
}

const range = `startDate=${new Date(D - 3 * DAY).toISOString().slice(0, 10)}&endDate=${new Date(D + DAY).toISOString().slice(0, 10)}`;

describe('places', () => {
  let s: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    s = await setUp(t);
    const at = D - 2 * DAY + 10 * HOUR;
    await s.click(s.l1, IP_GB, at);
    await s.click(s.l1, IP_GB, at + HOUR);
    await s.click(s.l2, IP_DE, at);
    await s.click(s.l2, IP_US, at);
    // Edge headers win over the database (UTF-8 as an edge sends it: Node reads the bytes as Latin-1).
    const latin1 = (v: string) => Buffer.from(v, 'utf8').toString('latin1');
    await s.click(s.l2, IP_GB, at + 2 * HOUR, DESKTOP, { 'cf-ipcountry': 'FR', 'cf-region': latin1('Île-de-France'), 'cf-ipcity': 'Paris' });
    await s.settle();
  }, 60_000);

  it('groupBy=city and groupBy=region: from the city database, (unknown) where it has nothing, the headers first', async () => {
    expect(await s.groups(`groupBy=city&${range}`)).toEqual([
      { key: '(unknown)', clicks: 1, visitors: 1 },
      { key: 'London, GB', clicks: 2, visitors: 1 },
      { key: 'Nürnberg, DE', clicks: 1, visitors: 1 },
      { key: 'Paris, FR', clicks: 1, visitors: 0 },
    ]);
    expect(await s.groups(`groupBy=region&${range}`)).toEqual([
      { key: '(unknown)', clicks: 1, visitors: 1 },
      { key: 'Bavaria, DE', clicks: 1, visitors: 1 },
      { key: 'England, GB', clicks: 2, visitors: 1 },
      { key: 'Île-de-France, FR', clicks: 1, visitors: 0 },
    ]);
  });

  it("a link's places are read from its clicks; the filters select them", async () => {
    // On the link, the visitor from Paris is new that day (their earlier clicks were on the other link).
    expect(await s.groups(`groupBy=city&linkId=${s.l2.id}&${range}`)).toEqual([
      { key: '(unknown)', clicks: 1, visitors: 1 },
      { key: 'Nürnberg, DE', clicks: 1, visitors: 1 },
      { key: 'Paris, FR', clicks: 1, visitors: 1 },
    ]);
    expect(await s.groups(`groupBy=country&city=${encodeURIComponent('London, GB')}&${range}`)).toEqual([{ key: 'GB', clicks: 2, visitors: 1 }]);
    expect(await s.groups(`groupBy=city&region=${encodeURIComponent('Bavaria, DE')}&${range}`)).toEqual([{ key: 'Nürnberg, DE', clicks: 1, visitors: 1 }]);
    expect(await s.groups(`groupBy=link&region=(unknown)&${range}`)).toEqual([{ key: s.l2.id, clicks: 1, visitors: 1 }]);
  });

  it("a hot link's places are kept in rollups from its places_from on: they outlive its raw clicks", async () => {
    const h = await setUp(t);
    const ws = (await rows<{ id: string }>(t.database.db, sql`SELECT workspace_id::text AS id FROM links WHERE id = ${h.l1.id}::uuid`))[0]!.id;
    const from = new Date(D - 3 * DAY).toISOString();
    await t.database.db.execute(sql`INSERT INTO analytics_hot_links (link_id, workspace_id, dims_from, urls_from, places_from)
      VALUES (${h.l1.id}::uuid, ${ws}::uuid, ${from}::timestamptz, ${from}::timestamptz, ${from}::timestamptz)`);
    const at = D - 2 * DAY + 10 * HOUR;
    await h.click(h.l1, IP_GB, at);
    await h.click(h.l1, IP_DE, at + HOUR);
    await h.click(h.l1, IP_GB, at + 2 * HOUR, IPHONE);
    await h.settle();
    const day = new Date(D - 2 * DAY).toISOString().slice(0, 10);
    const expected = [
      { key: 'London, GB', clicks: 2, visitors: 2 },
      { key: 'Nürnberg, DE', clicks: 1, visitors: 1 },
    ];
    expect(await h.groups(`groupBy=city&linkId=${h.l1.id}&startDate=${day}&endDate=${day}`)).toEqual(expected);
    // As retention would: the raw clicks are gone, the day's rollup rows answer.
    await t.database.db.execute(sql`DELETE FROM clicks WHERE link_id = ${h.l1.id}::uuid`);
    expect(await h.groups(`groupBy=city&linkId=${h.l1.id}&startDate=${day}&endDate=${day}`)).toEqual(expected);
    expect(await h.groups(`groupBy=region&linkId=${h.l1.id}&startDate=${day}&endDate=${day}`)).toEqual([
      { key: 'Bavaria, DE', clicks: 1, visitors: 1 },
      { key: 'England, GB', clicks: 2, visitors: 2 },
    ]);
  });

  it('GET /api/analytics/places names the city database and its credit', async () => {
    const r = await s.send('GET', '/api/analytics/places');
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toEqual({
      cityDatabase: {
        databaseType: 'DBIP-City-Lite',
        description: 'dbip.com IP to City Lite',
        attribution: 'IP Geolocation by DB-IP',
        attributionUrl: 'https://db-ip.com',
      },
      regionHeader: true,
      cityHeader: true,
    });
  });

  it('without GEOIP_CITY_DB nor the headers configured: places are (unknown), headers ignored', async () => {
    const p = await setUp(plain);
    await p.click(p.l1, IP_GB, D - 2 * DAY + 10 * HOUR, DESKTOP, { 'cf-region': 'Texas', 'cf-ipcity': 'Austin' });
    await p.settle();
    expect(await p.groups(`groupBy=city&${range}`)).toEqual([{ key: '(unknown)', clicks: 1, visitors: 1 }]);
    const r = await p.send('GET', '/api/analytics/places');
    expect(r.json()).toEqual({ cityDatabase: null, regionHeader: false, cityHeader: false });
  });
});

describe('visitors', () => {
  let s: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    s = await setUp(plain);
    const day1 = D - 2 * DAY + 9 * HOUR;
    const day2 = D - DAY + 9 * HOUR;
    await s.click(s.l1, IP_GB, day1);
    await s.click(s.l1, IP_GB, day1 + HOUR);
    await s.click(s.l2, IP_GB, day1 + 2 * HOUR);
    await s.click(s.l1, IP_GB, day1 + 3 * HOUR, IPHONE);
    await s.click(s.l1, IP_GB, day1 + 4 * HOUR, BOT);
    await s.click(s.l2, IP_GB, day2);
    await s.click(s.l2, IP_DE, D + 10 * 60_000);
    await s.settle();
  }, 60_000);

  it('once per UTC day in the workspace, in the group of the first click; another user agent is another visitor; bots none', async () => {
    const days = await s.groups(`groupBy=timeseries&interval=day&sort=asc&${range}`);
    expect(days.filter((d) => d.clicks > 0).map(({ clicks, visitors }) => ({ clicks, visitors }))).toEqual([
      { clicks: 4, visitors: 2 },
      { clicks: 1, visitors: 1 },
      { clicks: 1, visitors: 1 },
    ]);
    // The workspace's visitors by link: each visitor-day in the link of its first click.
    expect(await s.groups(`groupBy=link&${range}`)).toEqual(
      [
        { key: s.l1.id, clicks: 3, visitors: 2 },
        { key: s.l2.id, clicks: 3, visitors: 2 },
      ].sort((a, b) => (a.key < b.key ? -1 : 1)),
    );
    expect(await s.groups(`groupBy=device&${range}`)).toEqual([
      { key: 'desktop', clicks: 5, visitors: 3 },
      { key: 'mobile', clicks: 1, visitors: 1 },
    ]);
  });

  it("a link counts its own visitors: once per day on it, whatever the workspace's first click was", async () => {
    expect(await s.groups(`groupBy=device&linkId=${s.l1.id}&${range}`)).toEqual([
      { key: 'desktop', clicks: 2, visitors: 1 },
      { key: 'mobile', clicks: 1, visitors: 1 },
    ]);
    expect(await s.groups(`groupBy=country&linkId=${s.l2.id}&${range}`)).toEqual([
      { key: 'DE', clicks: 1, visitors: 1 },
      { key: 'GB', clicks: 2, visitors: 2 },
    ]);
  });

  it('no address is stored in any table; past days lose their salt and visitor days to the maintenance job', async () => {
    const tables = await rows<{ name: string }>(
      t.database.db,
      sql`SELECT quote_ident(table_name) AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    for (const app of [t, plain]) {
      for (const { name } of tables) {
        const [found] = await rows<{ n: number }>(
          app.database.db,
          sql`SELECT count(*)::int AS n FROM ${sql.raw(name)} x WHERE x::text LIKE ANY (ARRAY[${`%${IP_GB}%`}, ${`%${IP_DE}%`}, ${`%${IP_US}%`}])`,
        );
        expect(found?.n, name).toBe(0);
      }
    }
    const today = new Date(D).toISOString().slice(0, 10);
    const past = await rows<{ n: number }>(plain.database.db, sql`SELECT count(*)::int AS n FROM visitor_salts WHERE day < ${today}::date`);
    expect(past[0]!.n).toBeGreaterThan(0);
    const log = pino({ level: 'silent' });
    for (const job of clickMaintenanceJobs({ database: plain.database, retentionMonths: undefined, log })) await job.run(new Date());
    const left = await rows<{ salts: number; days: number; today: number }>(
      plain.database.db,
      sql`SELECT (SELECT count(*) FROM visitor_salts WHERE day < ${today}::date)::int AS salts,
                 (SELECT count(*) FROM visitor_days WHERE day < ${today}::date)::int AS days,
                 (SELECT count(*) FROM visitor_salts WHERE day = ${today}::date)::int AS today`,
    );
    expect(left[0]).toEqual({ salts: 0, days: 0, today: 1 });
    // The counts stay: rollups and clicks keep them.
    expect((await s.groups(`groupBy=timeseries&interval=day&${range}`)).reduce((n, d) => n + d.visitors, 0)).toBe(4);
  });
});
