/**
 * The links list with performance (operations.md §14), on PostgreSQL: one workspace of 100,000
 * links (created through POST /api/links) and 3,000,000 clicks over the last 90 days, then
 * GET /api/links?withStats=true timed over HTTP: the first page (default take) ordered by
 * clicks over the last 30 days (the default range), by revenue in one currency, and in creation
 * order; p50 / p95 of TIMED runs after WARM_UPS, with the load average beside them.
 *
 * How the data is made, to load it in a minute rather than hours: the clicks are inserted by
 * one generate_series statement straight into `clicks` (link skewed: a few links take most
 * clicks, every link some; instants uniform over 90 days, stored in time order as the writer
 * stores them; no bots), and link_daily_stats is
 * filled from them by one INSERT … GROUP BY (workspace, UTC day, link): the rows the click
 * writer's `days` step would have added batch by batch. Sales likewise (SALES of them, USD and
 * EUR, a tenth partly refunded) into sale_events and link_daily_revenue. analytics_rollups are
 * not filled: this list never reads them. Counts: LINK_STATS_LINKS, LINK_STATS_CLICKS.
 */
import { loadavg } from 'node:os';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { linkCountRankSource } from '../src/modules/analytics/store-link-stats.js';
import { SCOPES } from '../src/core/scopes.js';
import { BENCH_ADMIN, startServer } from './server.js';

type Row = { name: string; ms?: number; value?: string };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const LINKS = Number(process.env.LINK_STATS_LINKS ?? 100_000);
const CLICKS = Number(process.env.LINK_STATS_CLICKS ?? 3_000_000);
const SALES = Math.round(CLICKS / 100);
const SPAN_DAYS = 90;
const CREATE_BATCH = 5_000;
const WARM_UPS = 2;
const TIMED = 15;

async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Json> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

const elapsed = async (fn: () => Promise<unknown>) => {
  const t0 = performance.now();
  await fn();
  return Math.round(performance.now() - t0);
};

async function seed(base: string): Promise<{ workspaceId: string; headers: Record<string, string>; ms: number }> {
  const admin = { authorization: `Bearer ${BENCH_ADMIN}` };
  const ws = await call(base, 'POST', '/admin/workspaces', admin, { name: 'bench links stats', plan: 'enterprise' });
  await call(base, 'PATCH', `/admin/workspaces/${ws.id}`, admin, { rateLimitPerMinute: 1_000_000 });
  const { key } = await call(base, 'POST', `/admin/workspaces/${ws.id}/keys`, admin, { name: 'bench', scopes: SCOPES });
  const headers = { authorization: `Bearer ${key}` };
  const collections: Json[] = await call(
    base,
    'POST',
    '/api/collections',
    headers,
    Array.from({ length: 20 }, (_, i) => ({ name: `Campaign ${i + 1}` })),
  );
  const ms = await elapsed(async () => {
    for (let done = 0; done < LINKS; done += CREATE_BATCH) {
      const items = Array.from({ length: Math.min(CREATE_BATCH, LINKS - done) }, (_, j) => ({
        url: `https://shop.example.com/products/${done + j}?ref=bench`,
        collectionId: collections[(done + j) % collections.length].id,
        title: `Product ${done + j}`,
      }));
      await call(base, 'POST', '/api/links', headers, items);
    }
  });
  return { workspaceId: ws.id, headers, ms };
}

/** Clicks, sales and their per-link days, straight into the tables (see the file's comment). */
async function load(client: pg.Client, workspaceId: string, end: number): Promise<Row[]> {
  const start = new Date(end - SPAN_DAYS * 86_400_000).toISOString();
  const span = `${SPAN_DAYS} days`;
  const rows: Row[] = [];
  // Links numbered in creation order; the n-th click goes to link floor(LINKS * r^3) (r uniform): skewed, every link some.
  await client.query(`CREATE TEMP TABLE bench_links AS SELECT row_number() OVER (ORDER BY created_at, seq) - 1 AS n, id FROM links WHERE workspace_id = $1`, [
    workspaceId,
  ]);
  await client.query('CREATE UNIQUE INDEX ON bench_links (n)');
  rows.push({
    name: `clicks: ${CLICKS.toLocaleString('en')} by generate_series into clicks`,
    ms: await elapsed(() =>
      client.query(
        `INSERT INTO clicks (id, workspace_id, link_id, created_at, country, device, browser, os, referrer, bot, trigger)
         SELECT gen_random_uuid(), $1::uuid, l.id, g.at, 'DE', 'desktop', 'Chrome', 'Mac OS', 'direct', false, 'link'
         FROM (SELECT floor($5::int * random() ^ 3)::bigint AS n, $2::timestamptz + random() * $3::interval AS at FROM generate_series(1, $4::int)) g
         JOIN bench_links l ON l.n = g.n ORDER BY g.at`,
        [workspaceId, start, span, CLICKS, LINKS],
      ),
    ),
  });
  await client.query(`INSERT INTO customers (id, workspace_id, external_id, name) VALUES (gen_random_uuid(), $1, 'bench', 'Bench')`, [workspaceId]);
  rows.push({
    name: `sales: ${SALES.toLocaleString('en')} (usd, eur; a tenth refunded in part) by generate_series into sale_events`,
    ms: await elapsed(() =>
      client.query(
        `INSERT INTO sale_events (id, workspace_id, event_name, amount, currency, click_id, link_id, customer_id, created_at, refunded_amount)
         SELECT gen_random_uuid(), $1::uuid, 'Purchase', g.amount, CASE WHEN g.i % 3 = 0 THEN 'eur' ELSE 'usd' END, gen_random_uuid(), l.id,
           (SELECT id FROM customers WHERE workspace_id = $1::uuid), g.at, CASE WHEN g.i % 10 = 0 THEN g.amount / 2 ELSE 0 END
         FROM (SELECT i, floor($5::int * random() ^ 3)::bigint AS n, $2::timestamptz + random() * $3::interval AS at,
                 (500 + floor(random() * 50000))::bigint AS amount FROM generate_series(1, $4::int) i) g
         JOIN bench_links l ON l.n = g.n`,
        [workspaceId, start, span, SALES, LINKS],
      ),
    ),
  });
  rows.push({
    name: 'link_daily_stats and link_daily_revenue from them (INSERT … GROUP BY UTC day, link)',
    ms: await elapsed(async () => {
      await client.query(
        `INSERT INTO link_daily_stats (workspace_id, day, link_id, slot, clicks, leads, sales)
         SELECT workspace_id, day, link_id, 0, sum(c), 0, sum(s) FROM (
           SELECT workspace_id, (created_at AT TIME ZONE 'UTC')::date AS day, link_id, count(*) AS c, 0 AS s FROM clicks WHERE NOT bot GROUP BY 1, 2, 3
           UNION ALL
           SELECT workspace_id, (created_at AT TIME ZONE 'UTC')::date, link_id, 0, count(*) FROM sale_events GROUP BY 1, 2, 3) x
         GROUP BY 1, 2, 3`,
      );
      await client.query(
        `INSERT INTO link_daily_revenue (workspace_id, day, link_id, currency, slot, amount, refunded)
         SELECT workspace_id, (created_at AT TIME ZONE 'UTC')::date, link_id, currency, 0, sum(amount - refunded_amount), sum(refunded_amount)
         FROM sale_events GROUP BY 1, 2, 3, 4`,
      );
    }),
  });
  rows.push({ name: 'VACUUM ANALYZE', ms: await elapsed(() => client.query('VACUUM ANALYZE')) });
  const count = async (q: string) => Number((await client.query(q)).rows[0].n).toLocaleString('en');
  rows.push({
    name: 'link_daily_stats rows (all / last 30 days)',
    value: `${await count('SELECT count(*) AS n FROM link_daily_stats')} / ${await count(`SELECT count(*) AS n FROM link_daily_stats WHERE day >= current_date - 30`)}`,
  });
  rows.push({
    name: 'links with a click in the last 30 days',
    value: await count(`SELECT count(DISTINCT link_id) AS n FROM link_daily_stats WHERE day >= current_date - 30 AND clicks > 0`),
  });
  return rows;
}

/** p50 and p95 (nearest rank) in ms of GET /api/links?query, after the warm-ups, and the 1-minute load average after them. */
async function time(base: string, headers: Record<string, string>, query: string): Promise<string> {
  const runs: number[] = [];
  for (let i = 0; i < WARM_UPS + TIMED; i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}/api/links?${query}`, { headers });
    const body = await res.text();
    const ms = performance.now() - t0;
    if (!res.ok) throw new Error(`GET /api/links?${query}: ${res.status} ${body.slice(0, 300)}`);
    if (i === 0 && JSON.parse(body).length === 0) throw new Error(`GET /api/links?${query}: an empty page`);
    if (i >= WARM_UPS) runs.push(ms);
  }
  runs.sort((a, b) => a - b);
  const rank = (p: number) => runs[Math.ceil(p * runs.length) - 1]!;
  return `${rank(0.5).toFixed(1)} / ${rank(0.95).toFixed(1)} (load ${loadavg()[0]!.toFixed(2)})`;
}

/**
 * The ranking statement of the first row above (the analytics module's one source of per-link
 * clicks, walked from the largest as the links store walks it), under EXPLAIN ANALYZE: where its
 * time goes, without HTTP.
 */
async function explain(client: pg.Client, workspaceId: string): Promise<Row[]> {
  const span = { from: Date.now() - 30 * 86_400_000 };
  const rank = new PgDialect().sqlToQuery(
    sql`EXPLAIN (ANALYZE, BUFFERS) SELECT l.id FROM (SELECT link_id, k FROM ${linkCountRankSource(workspaceId, span, 'clicks')!} r0 ORDER BY k DESC) r
      CROSS JOIN LATERAL (SELECT t.id, t.created_at, t.seq FROM links t WHERE t.id = r.link_id AND t.workspace_id = ${workspaceId}::uuid AND t.deleted_at IS NULL LIMIT 1) l
      ORDER BY r.k DESC, l.created_at DESC, l.seq DESC LIMIT 50`,
  );
  await client.query(`BEGIN; SET LOCAL jit = off; SET LOCAL work_mem = '64MB'; SET LOCAL max_parallel_workers_per_gather = 0`);
  try {
    const plan = (await client.query(rank.sql, rank.params)).rows.map((r) => r['QUERY PLAN'] as string);
    process.stderr.write(`links-stats: EXPLAIN ANALYZE of the 30-day ranking by clicks:\n${plan.join('\n')}\n`);
    const line = (re: RegExp) => plan.find((l) => re.test(l))?.trim() ?? '(not in the plan)';
    return [
      { name: 'EXPLAIN ANALYZE, 30-day ranking by clicks: execution', value: line(/^Execution Time/) },
      { name: 'EXPLAIN ANALYZE: the days read', value: line(/Scan.*link_daily_stats/) },
      { name: 'EXPLAIN ANALYZE: heap fetches', value: line(/Heap Fetches/) },
    ];
  } finally {
    await client.query('COMMIT');
  }
}

export async function benchLinksStats(): Promise<Row[]> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('benchLinksStats needs DATABASE_URL (a fresh PostgreSQL database)');
  const server = await startServer({ DATABASE_URL: url });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows: Row[] = [
      {
        name: 'load average before (1 / 5 / 15 min)',
        value: loadavg()
          .map((l) => l.toFixed(2))
          .join(' / '),
      },
    ];
    const { workspaceId, headers, ms } = await seed(server.base);
    rows.push({ name: `links: ${LINKS.toLocaleString('en')} through POST /api/links, ${CREATE_BATCH} a request`, ms });
    rows.push(...(await load(client, workspaceId, Date.now())));
    const queries: [string, string][] = [
      ['orderBy=clicks desc, last 30 days (default range)', 'withStats=true&orderBy=clicks&sort=desc'],
      ['orderBy=clicks asc, last 30 days', 'withStats=true&orderBy=clicks&sort=asc'],
      ['orderBy=revenue&currency=usd desc, last 30 days', 'withStats=true&orderBy=revenue&currency=usd'],
      ['orderBy=clicks desc, 30 days in Asia/Kolkata (dates)', `withStats=true&orderBy=clicks&timezone=Asia/Kolkata&startDate=${day(-29)}&endDate=${day(0)}`],
      ['orderBy=clicks desc, 90 days', `withStats=true&orderBy=clicks&startDate=${day(-90)}`],
      ['orderBy=createdAt (page-only stats), last 30 days', 'withStats=true'],
      ['no stats (the plain list), for comparison', ''],
    ];
    for (const [name, query] of queries) rows.push({ name: `GET /api/links ${name}, take 50: p50 / p95 ms`, value: await time(server.base, headers, query) });
    rows.push(...(await explain(client, workspaceId)));
    return rows;
  } finally {
    await client.end();
    await server.stop();
  }
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
