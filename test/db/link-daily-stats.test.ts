/**
 * Migration 0020 on a database holding data from before it: the schema up to 0019; clicks
 * (some bots) over 40 days with their rollups, leads, and sales in two currencies with refunds,
 * each written by the statements of the previous version (the events, analytics_rollups and
 * analytics_revenue_rollups, random slots), then 0020. The rollups stay as they were; the new
 * per-link days hold every figure of the rollups' link rows; and GET /api/links?withStats
 * answers, for whole days, partial days and a time zone, exactly what the raw clicks and events
 * say, as GET /api/analytics does.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Database } from '../../src/db/connect.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { bearer, startTestApp, type TestApp } from '../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../helpers/fresh-database.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const query = <T = Record<string, unknown>>(db: Database, text: string, params?: unknown[]) => db.withSession((s) => s.query<T>(text, params));

/** The previous version's rollup rows of the rows `ev` ($1: the slot), grouped, with `counts` and `conflict`. */
const oldRollup = (table: 'analytics_rollups' | 'analytics_revenue_rollups', columns: string, keys: string, counts: string, conflict: string) => `
  INSERT INTO ${table} AS r (workspace_id, scope_id, dim, level, bucket, value, partner_id, ${keys}slot, ${columns})
  SELECT ev.workspace_id, k.scope_id, k.dim, k.level, analytics_bucket(k.level, ev.created_at), k.value, k.partner_id, ${keys.replace(/(\w+), /g, 'ev.$1, ')}$1::smallint, ${counts}
  FROM ev CROSS JOIN LATERAL analytics_keys(ev.workspace_id, ev.link_id, ev.partner_id, ev.country, ev.device, ev.browser, ev.os,
    ev.referrer, ev.referrer_url, ev.utm_source, ev.utm_medium, ev.utm_campaign, ev.utm_term, ev.utm_content, ev.trigger, false, false) k
  GROUP BY 1, 2, 3, 4, 5, 6, 7${keys ? ', 8' : ''}
  ON CONFLICT (workspace_id, scope_id, dim, level, bucket, value, partner_id, ${keys}slot) DO UPDATE SET ${conflict}`;

/** The click writer before 0020, for clicks already in `clicks` ($2: their ids). */
const OLD_CLICK_ROLLUPS = `WITH ev AS (SELECT * FROM clicks WHERE NOT bot AND id = ANY($2::uuid[]))
  ${oldRollup('analytics_rollups', 'clicks', '', 'count(*)', 'clicks = r.clicks + EXCLUDED.clicks')}`;

const OLD_LEAD = `WITH ev AS (INSERT INTO lead_events (id, workspace_id, event_name, click_id, link_id, customer_id, created_at, country, device, referrer, trigger)
    VALUES ($2::uuid, $3::uuid, 'Sign up', $4::uuid, $5::uuid, $6::uuid, $7::timestamptz, 'GB', 'desktop', 'direct', 'link') RETURNING *),
  ru AS (${oldRollup('analytics_rollups', 'leads', '', 'count(*)', 'leads = r.leads + EXCLUDED.leads')})
  SELECT 1`;

const OLD_SALE = `WITH ev AS (INSERT INTO sale_events (id, workspace_id, event_name, amount, currency, click_id, link_id, customer_id, created_at, country, device, referrer, trigger)
    VALUES ($2::uuid, $3::uuid, 'Purchase', $8::bigint, $9::text, $4::uuid, $5::uuid, $6::uuid, $7::timestamptz, 'GB', 'desktop', 'direct', 'link') RETURNING *),
  ru AS (${oldRollup('analytics_rollups', 'sales, amount', '', 'count(*), sum(ev.amount)', 'sales = r.sales + EXCLUDED.sales, amount = r.amount + EXCLUDED.amount')}),
  rm AS (${oldRollup('analytics_revenue_rollups', 'sales, amount, refunded', 'currency, ', 'count(*), sum(ev.amount), 0', 'sales = r.sales + EXCLUDED.sales, amount = r.amount + EXCLUDED.amount')})
  SELECT 1`;

/** setRefundedAmount before 0020 ($2 the sale, $3 the workspace, $4 its refunded total). */
const OLD_REFUND = `WITH before AS (SELECT refunded_amount FROM sale_events WHERE id = $2::uuid AND workspace_id = $3::uuid FOR UPDATE),
  ev AS (UPDATE sale_events s SET refunded_amount = LEAST($4::bigint, s.amount) FROM before
    WHERE s.id = $2::uuid AND s.workspace_id = $3::uuid AND LEAST($4::bigint, s.amount) <> before.refunded_amount
    RETURNING s.*, s.refunded_amount - before.refunded_amount AS delta),
  ru AS (${oldRollup('analytics_rollups', 'amount', '', 'sum(-ev.delta)', 'amount = r.amount + EXCLUDED.amount')}),
  rm AS (${oldRollup('analytics_revenue_rollups', 'sales, amount, refunded', 'currency, ', '0, sum(-ev.delta), sum(ev.delta)', 'amount = r.amount + EXCLUDED.amount, refunded = r.refunded + EXCLUDED.refunded')})
  SELECT 1`;

interface Event {
  link: number;
  at: number;
  kind: 'click' | 'bot' | 'lead' | 'sale';
  amount?: number;
  currency?: string;
  refunded?: number;
}

let database: Database;
let t: TestApp | undefined;
const workspaceId = randomUUID();
const links = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
const events: Event[] = [];
const now = Date.now();
let rollupsBefore: unknown[];

const snapshotRollups = () =>
  query(
    database,
    `SELECT 'c' AS t, scope_id, dim, level::text, bucket::text, value, partner_id, slot, clicks::text || '/' || leads::text || '/' || sales::text || '/' || amount::text AS v FROM analytics_rollups
     UNION ALL SELECT 'm', scope_id, dim, level::text, bucket::text, value || currency, partner_id, slot, sales::text || '/' || amount::text || '/' || refunded::text FROM analytics_revenue_rollups
     ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`,
  );

beforeAll(async () => {
  database = await freshDatabase();
  const all = await loadMigrations();
  expect(all.filter((m) => m.name.startsWith('0020')).map((m) => m.name)).toEqual(['0020_link_daily_stats.sql']);
  await migrate(
    database,
    all.filter((m) => m.name < '0020'),
  );
  const collection = randomUUID();
  const customer = randomUUID();
  await query(database, `INSERT INTO workspaces (id, name, plan) VALUES ($1, 'before 0020', 'enterprise')`, [workspaceId]);
  await query(database, `INSERT INTO collections (id, workspace_id, name) VALUES ($1, $2, 'c')`, [collection, workspaceId]);
  for (const [i, id] of links.entries())
    await query(
      database,
      `INSERT INTO links (id, workspace_id, short_id, url, collection_id, created_at) VALUES ($1, $2, $3, 'https://shop.example/', $4, $5)`,
      [id, workspaceId, `m20${i}${randomInt(1e9)}`, collection, new Date(now - 50 * DAY + i * 1000).toISOString()],
    );
  await query(database, `INSERT INTO customers (id, workspace_id, external_id, name) VALUES ($1, $2, 'buyer', 'B')`, [customer, workspaceId]);
  // 160 clicks over 40 days, every 6 hours and a bit (so they fall at every hour of the day), a tenth bots.
  const clickIds: string[] = [];
  for (let n = 0; n < 160; n++) {
    const link = (n * 7) % 4 === 3 && n % 2 ? 3 : n % 3;
    const at = now - 40 * DAY + n * 6 * HOUR + (n % 7) * 11 * 60_000;
    const bot = n % 10 === 9;
    const id = randomUUID();
    clickIds.push(id);
    await query(
      database,
      `INSERT INTO clicks (id, workspace_id, link_id, created_at, country, device, referrer, bot, trigger) VALUES ($1, $2, $3, $4, 'GB', 'desktop', 'direct', $5, 'link')`,
      [id, workspaceId, links[link], new Date(at).toISOString(), bot],
    );
    events.push({ link, at, kind: bot ? 'bot' : 'click' });
    if (bot) continue;
    if (n % 4 === 0) {
      await query(database, OLD_LEAD, [randomInt(8), randomUUID(), workspaceId, id, links[link], customer, new Date(at + HOUR).toISOString()]);
      events.push({ link, at: at + HOUR, kind: 'lead' });
    }
    if (n % 5 === 0) {
      const sale = randomUUID();
      const amount = 1000 + n * 13;
      const currency = n % 3 ? 'usd' : 'eur';
      await query(database, OLD_SALE, [randomInt(8), sale, workspaceId, id, links[link], customer, new Date(at + 2 * HOUR).toISOString(), amount, currency]);
      const refunded = n % 15 === 0 ? (n % 2 ? amount : 400) : 0;
      if (refunded) await query(database, OLD_REFUND, [randomInt(8), sale, workspaceId, refunded]);
      events.push({ link, at: at + 2 * HOUR, kind: 'sale', amount, currency, refunded });
    }
  }
  // The click writer: one batch per 40 clicks.
  for (let b = 0; b < clickIds.length; b += 40) await query(database, OLD_CLICK_ROLLUPS, [randomInt(8), clickIds.slice(b, b + 40)]);
  rollupsBefore = await snapshotRollups();
  expect(
    await migrate(
      database,
      all.filter((m) => m.name <= '0020_link_daily_stats.sql'),
    ),
  ).toEqual(['0020_link_daily_stats.sql']);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await dropFreshDatabases();
});

type Money = Record<string, number>;
interface Stats {
  clicks: number;
  leads: number;
  sales: number;
  revenue: Money;
  refunded: Money;
}

/** Each link's figures from the events between `from` and `to` (inclusive, ms), counted naively. */
function naive(from: number, to: number): Record<string, Stats> {
  const out = Object.fromEntries(links.map((id) => [id, { clicks: 0, leads: 0, sales: 0, revenue: {}, refunded: {} } as Stats]));
  for (const e of events) {
    if (e.at < from || e.at > to) continue;
    const s = out[links[e.link]!]!;
    if (e.kind === 'click') s.clicks++;
    if (e.kind === 'lead') s.leads++;
    if (e.kind !== 'sale') continue;
    s.sales++;
    s.revenue[e.currency!] = (s.revenue[e.currency!] ?? 0) + e.amount! - e.refunded!;
    s.refunded[e.currency!] = (s.refunded[e.currency!] ?? 0) + e.refunded!;
  }
  return out;
}

describe('migration 0020 on a database with clicks, leads and sales from before it', () => {
  test('the rollups are untouched', async () => {
    expect(await snapshotRollups()).toEqual(rollupsBefore);
  });

  test("every link day holds its rollups' figures, every currency its revenue rows'", async () => {
    const counts = await query(
      database,
      `WITH old AS (SELECT workspace_id, scope_id AS link_id, (bucket AT TIME ZONE 'UTC')::date AS day, sum(clicks) AS c, sum(leads) AS l, sum(sales) AS s
                    FROM analytics_rollups WHERE dim = '' AND level = 'd' AND scope_id <> workspace_id GROUP BY 1, 2, 3),
            kept AS (SELECT workspace_id, link_id, day, sum(clicks) AS c, sum(leads) AS l, sum(sales) AS s FROM link_daily_stats GROUP BY 1, 2, 3)
       SELECT * FROM old FULL JOIN kept USING (workspace_id, link_id, day) WHERE old.c IS DISTINCT FROM kept.c OR old.l IS DISTINCT FROM kept.l OR old.s IS DISTINCT FROM kept.s`,
    );
    expect(counts).toEqual([]);
    const money = await query(
      database,
      `WITH old AS (SELECT workspace_id, scope_id AS link_id, (bucket AT TIME ZONE 'UTC')::date AS day, currency, sum(amount) AS a, sum(refunded) AS r
                    FROM analytics_revenue_rollups WHERE dim = '' AND level = 'd' AND scope_id <> workspace_id GROUP BY 1, 2, 3, 4),
            kept AS (SELECT workspace_id, link_id, day, currency, sum(amount) AS a, sum(refunded) AS r FROM link_daily_revenue GROUP BY 1, 2, 3, 4)
       SELECT * FROM old FULL JOIN kept USING (workspace_id, link_id, day, currency) WHERE old.a IS DISTINCT FROM kept.a OR old.r IS DISTINCT FROM kept.r`,
    );
    expect(money).toEqual([]);
    const [n] = await query<{ n: number }>(database, 'SELECT count(*)::int AS n FROM link_daily_stats');
    expect(n!.n).toBeGreaterThan(40);
  });

  test('GET /api/links?withStats answers what the raw events say, as GET /api/analytics, for whole days, partial days and a zone', async () => {
    t = await startTestApp({ database });
    const key = (await t.admin('POST', `/workspaces/${workspaceId}/keys`, { name: 'after 0020', scopes: ['linksRead', 'analyticsRead'] })).json<{
      key: string;
    }>().key;
    const get = async (url: string) => {
      const res = await t!.inject({ method: 'GET', url, headers: bearer(key) });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<({ id?: string; key?: string } & Stats & { stats?: Stats })[]>();
    };
    const iso = (ms: number) => new Date(ms).toISOString();
    const date = (ms: number) => iso(ms).slice(0, 10);
    const ranges: [string, number, number][] = [
      ['whole UTC days', Date.parse(date(now - 35 * DAY)), Date.parse(date(now - 5 * DAY)) + DAY - 1],
      ['partial days', now - 33 * DAY - 5 * HOUR, now - 7 * DAY + 3 * HOUR],
      ['all of it', now - 45 * DAY, now + DAY],
    ];
    for (const [name, from, to] of ranges) {
      const range = name === 'whole UTC days' ? `startDate=${date(from)}&endDate=${date(to)}` : `startDate=${iso(from)}&endDate=${iso(to)}`;
      const listed = await get(`/api/links?withStats=true&${range}`);
      const want = naive(from, to);
      expect(Object.fromEntries(listed.map((l) => [l.id, l.stats])), name).toEqual(want);
      for (const g of await get(`/api/analytics?groupBy=link&${range}`)) {
        expect({ clicks: g.clicks, leads: g.leads, sales: g.sales, revenue: g.revenue, refunded: g.refunded }, `${name}: analytics`).toEqual(want[g.key!]);
      }
    }
    // Asia/Kolkata (UTC+05:30): local days start at 18:30 UTC.
    const localStart = Date.parse(`${date(now - 20 * DAY)}T00:00:00+05:30`);
    const localEnd = Date.parse(`${date(now - 10 * DAY)}T00:00:00+05:30`) + DAY - 1;
    const zoned = await get(`/api/links?withStats=true&timezone=Asia/Kolkata&startDate=${date(now - 20 * DAY)}&endDate=${date(now - 10 * DAY)}`);
    expect(Object.fromEntries(zoned.map((l) => [l.id, l.stats]))).toEqual(naive(localStart, localEnd));
  });
});
