/**
 * Migration 0018 on a database holding sales from before it: the schema up to 0017, clicks
 * written by the click writer, sales in three currencies and their refunds written by the
 * statements of the previous version (sale_events and analytics_rollups only, in random slots,
 * one link hot part of the time), then 0018. analytics_rollups stay exactly as they were; the
 * new per-currency rows add up, key by key, to their sales and amounts; and GET /api/analytics
 * answers every figure per currency as the sales say.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Database } from '../../src/db/connect.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { enrichClick } from '../../src/modules/clicks/record.js';
import { bearer, startTestApp, type TestApp } from '../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../helpers/fresh-database.js';
import { DESKTOP, IPHONE } from '../helpers/visitors.js';

const DAY = 86_400_000;
const query = <T = Record<string, unknown>>(db: Database, text: string, params?: unknown[]) => db.withSession((s) => s.query<T>(text, params));

/** The dimensions an event copies from its click (conversions/store.ts). */
const DIMS = 'partner_id, country, device, browser, os, referrer, referrer_url, utm_source, utm_medium, utm_campaign, utm_term, utm_content, trigger';

/** The previous version's rollup statement for an event `ev` ($1: its slot), with `counts` and `conflict` as it wrote them. */
const oldRollup = (
  counts: string,
  conflict: string,
) => `INSERT INTO analytics_rollups AS r (workspace_id, scope_id, dim, level, bucket, value, partner_id, slot, clicks, leads, sales, amount)
  SELECT ev.workspace_id, k.scope_id, k.dim, k.level, analytics_bucket(k.level, ev.created_at), k.value, k.partner_id, $1::smallint, ${counts}
  FROM ev LEFT JOIN analytics_hot_links h ON h.link_id = ev.link_id
  CROSS JOIN LATERAL analytics_keys(ev.workspace_id, ev.link_id, ev.partner_id, ev.country, ev.device, ev.browser, ev.os,
    ev.referrer, ev.referrer_url, ev.utm_source, ev.utm_medium, ev.utm_campaign, ev.utm_term, ev.utm_content, ev.trigger,
    (ev.created_at >= h.dims_from) IS TRUE, (ev.created_at >= h.urls_from) IS TRUE) k
  ORDER BY ev.workspace_id, k.scope_id, k.dim COLLATE "C", k.level, 5, k.value COLLATE "C", k.partner_id
  ON CONFLICT (workspace_id, scope_id, dim, level, bucket, value, partner_id, slot) DO UPDATE SET ${conflict}`;

/** A sale as recordSale wrote it before 0018 (a refund that arrived first already in refunded_amount). */
const OLD_SALE = `WITH src AS (SELECT link_id, ${DIMS} FROM clicks WHERE id = $2::uuid AND workspace_id = $3::uuid LIMIT 1),
  ev AS (INSERT INTO sale_events (id, workspace_id, event_name, amount, currency, click_id, link_id, customer_id, refunded_amount, created_at, ${DIMS})
    SELECT $4::uuid, $3::uuid, 'Purchase', $5::bigint, $6::text, $2::uuid, src.link_id, $7::uuid, LEAST($8::bigint, $5::bigint), $9::timestamptz, ${DIMS.split(
      ', ',
    )
      .map((c) => `src.${c}`)
      .join(', ')}
    FROM src RETURNING *),
  ru AS (${oldRollup('0, 0, 1, ev.amount - ev.refunded_amount', 'sales = r.sales + EXCLUDED.sales, amount = r.amount + EXCLUDED.amount')})
  SELECT 1`;

/** setRefundedAmount before 0018: the difference taken off the sale's rollups. */
const OLD_REFUND = `WITH before AS (SELECT refunded_amount FROM sale_events WHERE id = $2::uuid AND workspace_id = $3::uuid FOR UPDATE),
  ev AS (UPDATE sale_events s SET refunded_amount = LEAST($4::bigint, s.amount) FROM before
    WHERE s.id = $2::uuid AND s.workspace_id = $3::uuid AND LEAST($4::bigint, s.amount) <> before.refunded_amount
    RETURNING s.*, s.refunded_amount - before.refunded_amount AS delta),
  ru AS (${oldRollup('0, 0, 0, -ev.delta', 'amount = r.amount + EXCLUDED.amount')})
  SELECT 1`;

interface Sale {
  link: number;
  country: string;
  referrerUrl: string;
  partner: string | null;
  day: string;
  amount: number;
  currency: string;
  refunded: number;
}

let database: Database;
let t: TestApp | undefined;
const workspaceId = randomUUID();
const links = [randomUUID(), randomUUID(), randomUUID()];
const partner = randomUUID();
const sales: Sale[] = [];
const now = Date.now();
const midnight = (ms: number) => Math.floor(ms / DAY) * DAY;
let rollupsBefore: unknown[];

const snapshotRollups = () =>
  query(
    database,
    `SELECT scope_id, dim, level::text, bucket::text, value, partner_id, slot, clicks::text, leads::text, sales::text, amount::text
     FROM analytics_rollups ORDER BY 1, 2, 3, 4, 5, 6, 7`,
  );

beforeAll(async () => {
  database = await freshDatabase();
  const all = await loadMigrations();
  expect(all.filter((m) => m.name.startsWith('0018')).map((m) => m.name)).toEqual(['0018_revenue_by_currency.sql']);
  await migrate(
    database,
    all.filter((m) => m.name < '0018'),
  );
  const collection = randomUUID();
  const customer = randomUUID();
  await query(database, `INSERT INTO workspaces (id, name, plan) VALUES ($1, 'before 0018', 'enterprise')`, [workspaceId]);
  await query(database, `INSERT INTO collections (id, workspace_id, name) VALUES ($1, $2, 'c')`, [collection, workspaceId]);
  for (const [i, id] of links.entries())
    await query(database, `INSERT INTO links (id, workspace_id, short_id, url, collection_id) VALUES ($1, $2, $3, 'https://shop.example/', $4)`, [
      id,
      workspaceId,
      `m18${i}${randomInt(1e9)}`,
      collection,
    ]);
  await query(database, `INSERT INTO customers (id, workspace_id, external_id, name) VALUES ($1, $2, 'buyer', 'B')`, [customer, workspaceId]);
  // Link 0 keeps its dimensions in rollups from 10 days ago, its referrer URLs from 5 days ago.
  await query(database, `INSERT INTO analytics_hot_links (link_id, workspace_id, dims_from, urls_from) VALUES ($1, $2, $3, $4)`, [
    links[0],
    workspaceId,
    new Date(midnight(now - 10 * DAY)).toISOString(),
    new Date(midnight(now - 5 * DAY)).toISOString(),
  ]);
  // 90 clicks over 30 days; a sale on every third, its time a few hours after its click.
  const countries = ['GB', 'DE', 'US'];
  const currencies = ['usd', 'eur', 'gbp'];
  const clicks = Array.from({ length: 90 }, (_, n) => ({
    id: randomUUID(),
    workspaceId,
    linkId: links[n % 3]!,
    partnerId: n % 3 === 1 ? partner : null,
    at: now - 30 * DAY + n * 8 * 3_600_000,
    ip: '127.0.0.1',
    userAgent: n % 2 ? IPHONE : DESKTOP,
    referer: `https://r${n % 4}.example/p${n % 5}`,
    country: countries[n % 3 === 0 ? (n / 3) % 3 : n % 3],
  }));
  // Stored as that version's click writer stored them (today's writer needs the tables of later
  // migrations); their rollups do not matter here: only sales are backfilled.
  for (const c of clicks) {
    const r = enrichClick(c, () => undefined);
    await query(
      database,
      `INSERT INTO clicks (id, workspace_id, link_id, partner_id, created_at, country, device, browser, os, referrer, referrer_url, bot, trigger)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [r.id, r.workspaceId, r.linkId, r.partnerId, r.createdAt, r.country, r.device, r.browser, r.os, r.referrer, r.referrerUrl, r.bot, r.trigger],
    );
  }
  for (const [n, c] of clicks.entries()) {
    if (n % 3 === 2) continue;
    const id = randomUUID();
    const at = c.at + (n % 5) * 3_600_000;
    const amount = 1000 + n * 37;
    const currency = currencies[Math.floor(n / 3) % 3]!;
    const early = n % 11 === 0 ? 250 : 0; // a Stripe refund that arrived before its sale
    await query(database, OLD_SALE, [randomInt(8), c.id, workspaceId, id, amount, currency, customer, early, new Date(at).toISOString()]);
    let refunded = early;
    // Some refunded later, partly or in full, in one or two steps.
    for (const step of n % 4 === 1 ? [300, n % 8 === 1 ? amount : 300] : []) {
      await query(database, OLD_REFUND, [randomInt(8), id, workspaceId, step]);
      refunded = Math.max(refunded, Math.min(step, amount));
    }
    sales.push({
      link: n % 3,
      country: c.country!,
      referrerUrl: c.referer,
      partner: c.partnerId,
      day: new Date(at).toISOString().slice(0, 10),
      amount,
      currency,
      refunded,
    });
  }
  expect(new Set(sales.map((s) => s.currency))).toEqual(new Set(currencies));
  rollupsBefore = await snapshotRollups();
  expect(
    await migrate(
      database,
      all.filter((m) => m.name <= '0018_revenue_by_currency.sql'),
    ),
  ).toEqual(['0018_revenue_by_currency.sql']);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await dropFreshDatabases();
});

type Money = Record<string, number>;
interface Figures {
  sales: number;
  saleAmount: number;
  revenue: Money;
  refunded: Money;
}

/** The sales grouped by `keyOf`, per currency, as the API should answer them. */
function expected(keyOf: (s: Sale) => string, from = sales): Map<string, Figures> {
  const out = new Map<string, Figures>();
  for (const s of from) {
    const key = keyOf(s);
    const g = out.get(key) ?? { sales: 0, saleAmount: 0, revenue: {}, refunded: {} };
    g.sales++;
    g.saleAmount += s.amount - s.refunded;
    g.revenue[s.currency] = (g.revenue[s.currency] ?? 0) + s.amount - s.refunded;
    g.refunded[s.currency] = (g.refunded[s.currency] ?? 0) + s.refunded;
    out.set(key, g);
  }
  return out;
}

describe('migration 0018 on a database with sales from before it', () => {
  test('analytics_rollups are untouched', async () => {
    expect(await snapshotRollups()).toEqual(rollupsBefore);
  });

  test('every rollup key: the per-currency rows add up to its sales and amount, and exist only where it has them', async () => {
    const keys = 'workspace_id, scope_id, dim, level, bucket, value, partner_id';
    const mismatched = await query(
      database,
      `WITH old AS (SELECT ${keys}, sum(sales) AS sales, sum(amount) AS amount FROM analytics_rollups GROUP BY ${keys} HAVING sum(sales) <> 0 OR sum(amount) <> 0),
            kept AS (SELECT ${keys}, sum(sales) AS sales, sum(amount) AS amount FROM analytics_revenue_rollups GROUP BY ${keys})
       SELECT * FROM old FULL JOIN kept USING (workspace_id, scope_id, dim, level, bucket, value, partner_id)
       WHERE old.sales IS DISTINCT FROM kept.sales OR old.amount IS DISTINCT FROM kept.amount`,
    );
    expect(mismatched).toEqual([]);
    const [count] = await query<{ n: number }>(database, `SELECT count(*)::int AS n FROM analytics_revenue_rollups`);
    expect(count!.n).toBeGreaterThan(sales.length);
    // Link 0's dimensions from its hot days only (a month row starts when its month does), as its clicks'.
    const early = await query(
      database,
      `SELECT 1 FROM analytics_revenue_rollups r JOIN analytics_hot_links h ON h.link_id = r.scope_id
       WHERE r.dim <> '' AND r.bucket + CASE r.level WHEN 'm' THEN interval '1 month' ELSE interval '1 day' END
         <= CASE r.dim WHEN 'referrer_url' THEN h.urls_from ELSE h.dims_from END`,
    );
    expect(early).toEqual([]);
  });

  test('GET /api/analytics answers every figure per currency, and saleAmount as before', async () => {
    t = await startTestApp({ database });
    const key = (await t.admin('POST', `/workspaces/${workspaceId}/keys`, { name: 'after 0018', scopes: ['analyticsRead'] })).json<{ key: string }>().key;
    const answer = async (qs: string): Promise<Map<string, Figures>> => {
      const res = await t!.inject({ method: 'GET', url: `/api/analytics?take=5000&${qs}`, headers: bearer(key) });
      expect(res.statusCode, res.body).toBe(200);
      const groups = res.json<(Figures & { key: string })[]>().filter((g) => g.sales > 0);
      return new Map(
        groups.map((g) => [
          qs.includes('timeseries') ? g.key.slice(0, 10) : g.key,
          { sales: g.sales, saleAmount: g.saleAmount, revenue: g.revenue, refunded: g.refunded },
        ]),
      );
    };
    expect(await answer('groupBy=link')).toEqual(expected((s) => links[s.link]!));
    expect(await answer('groupBy=country')).toEqual(expected((s) => s.country));
    expect(await answer('groupBy=partner')).toEqual(expected((s) => s.partner ?? '(none)'));
    expect(await answer('groupBy=timeseries&interval=day')).toEqual(expected((s) => s.day));
    expect(await answer('groupBy=timeseries&interval=month')).toEqual(expected((s) => `${s.day.slice(0, 7)}-01`));
    // The hot link's countries: rollups from its hot day on, raw sales before.
    const hot = sales.filter((s) => s.link === 0);
    expect(await answer(`groupBy=country&linkId=${links[0]}`)).toEqual(expected((s) => s.country, hot));
    expect(await answer(`groupBy=referrer_url&linkId=${links[0]}`)).toEqual(expected((s) => s.referrerUrl, hot));
  });
});
