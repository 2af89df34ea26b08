/**
 * Analytics at volume (issue 15), on PostgreSQL: one workspace of 2,000 links over 20
 * collections, N clicks of 90 days written by the production click writer (storeClicks, in
 * batches of 20,000, so whatever it derives is derived as in production), a few hundred leads
 * and sales through the API, then every groupBy of GET /api/analytics timed over HTTP (the list
 * read from the OpenAPI document, so new breakdowns are timed without touching this file), and
 * the storage each click costs. N comes from ANALYTICS_BENCH_CLICKS ("1000000,10000000"), each
 * on a fresh database. Load goes to 127.0.0.1 only.
 */
import pg from 'pg';
import { pathToFileURL } from 'node:url';
import { sql } from 'drizzle-orm';
import { openPostgres, type Database } from '../src/db/connect.js';
import { SCOPES } from '../src/core/scopes.js';
import { retryOnConflict } from '../src/core/transaction.js';
import { HOT_LINK_CLICKS_PER_DAY, storeClicks } from '../src/modules/clicks/store.js';
import { URLS_KEPT_PER_DAY } from '../src/modules/clicks/referrer-days.js';
import { openCountryLookup } from '../src/infra/country.js';
import { traffic, type TrafficLink } from './analytics-traffic.js';
import { BENCH_ADMIN, startServer } from './server.js';

type Row = { name: string; ms?: number; value?: string };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const DAY = 86_400_000;
const SPAN_DAYS = 90;
const BATCH = 20_000;
/** Batches written at once, each writer over its own span of the 90 days: the load was PostgreSQL-bound (one backend at 94 % of a core, node 6 %). */
const WRITERS = 2;
const LINKS = 2_000;
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

/** startServer gives up waiting after 10 s; on a busy machine the first start can take longer. */
async function healthy(base: string, seconds = 120): Promise<void> {
  for (const until = Date.now() + seconds * 1000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      /* not listening yet */
    }
  }
  throw new Error(`the server at ${base} did not answer /healthz within ${seconds} s`);
}

/** An enterprise workspace without a practical rate limit: 20 collections, 30 tags, 6 partners, 2,000 links. */
async function seedWorkspace(base: string): Promise<{ workspaceId: string; key: string; headers: Record<string, string>; links: TrafficLink[] }> {
  const admin = { authorization: `Bearer ${BENCH_ADMIN}` };
  const ws = await call(base, 'POST', '/admin/workspaces', admin, { name: 'bench analytics', plan: 'enterprise' });
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
  const tags: Json[] = await call(
    base,
    'POST',
    '/api/tags',
    headers,
    Array.from({ length: 30 }, (_, i) => ({ name: `tag-${i + 1}` })),
  );
  const partners: Json[] = await call(
    base,
    'POST',
    '/api/partners',
    headers,
    Array.from({ length: 6 }, (_, i) => ({ name: `Partner ${i + 1}`, email: `partner${i + 1}@example.com` })),
  );
  const items = Array.from({ length: LINKS }, (_, i) => ({
    url: `https://shop.example.com/products/${i}?ref=bench`,
    collectionId: collections[i % collections.length].id,
    tagIds: i % 3 === 0 ? [] : [tags[i % tags.length].id, tags[(i * 7) % tags.length].id].filter((t, j, all) => all.indexOf(t) === j),
    // A quarter of the links are a partner's.
    ...(i % 4 === 1 ? { partnerId: partners[i % partners.length].id } : {}),
    utm: { source: ['newsletter', 'twitter', 'facebook', 'google'][i % 4], medium: i % 2 ? 'social' : 'email', campaign: `spring-${i % 20}` },
  }));
  const links: Json[] = await call(base, 'POST', '/api/links', headers, items);
  return { workspaceId: ws.id, key, headers, links: links.map((l) => ({ id: l.id, partnerId: l.partnerId ?? null })) };
}

/** Runs `task` over `items`, `width` at a time. */
async function inParallel<T>(items: T[], width: number, task: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await task(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
}

/** A lead on each sampled click (up to 400), a sale on every other one of them. */
async function trackConversions(base: string, headers: Record<string, string>, clickIds: string[]): Promise<{ leads: number; sales: number }> {
  const ids = clickIds.slice(0, 400);
  let sales = 0;
  await inParallel(ids, 8, async (clickId, i) => {
    const customer = { customerExternalId: `customer-${i}`, customerName: `Customer ${i}` };
    await call(base, 'POST', '/api/track/lead', headers, { clickId, eventName: 'Sign up', ...customer, customerEmail: `c${i}@example.com` });
    if (i % 2) return;
    await call(base, 'POST', '/api/track/sale', headers, { clickId, amount: 500 + ((i * 7919) % 50_000), currency: 'usd', ...customer });
    sales++;
  });
  return { leads: ids.length, sales };
}

/** The values a query parameter of GET /api/analytics may take, from the served OpenAPI document. */
function queryEnum(doc: Json, name: string): string[] {
  const param = (doc.paths?.['/api/analytics']?.get?.parameters ?? []).find((p: Json) => p.in === 'query' && p.name === name);
  const values = param?.schema?.enum;
  if (!Array.isArray(values) || values.length === 0) throw new Error(`GET /api/analytics: no enum for ${name} in the OpenAPI document`);
  return values;
}

/** p50 and p95 (nearest rank: of 15 runs, the slowest) in ms, after the warm-ups. */
async function time(base: string, headers: Record<string, string>, query: string): Promise<string> {
  const runs: number[] = [];
  for (let i = 0; i < WARM_UPS + TIMED; i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}/api/analytics?${query}`, { headers });
    const body = await res.text();
    const ms = performance.now() - t0;
    if (!res.ok) throw new Error(`GET /api/analytics?${query}: ${res.status} ${body.slice(0, 300)}`);
    if (i >= WARM_UPS) runs.push(ms);
  }
  runs.sort((a, b) => a - b);
  const rank = (p: number) => runs[Math.ceil(p * runs.length) - 1]!;
  return `${rank(0.5).toFixed(1)} / ${rank(0.95).toFixed(1)}`;
}

/** Bytes of clicks, the event tables and every table named *rollup*, each with its partitions. */
const STORAGE_SQL = `
  WITH RECURSIVE tree AS (
    SELECT c.oid AS root, c.oid AS rel FROM pg_class c
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
       AND (c.relname IN ('clicks', 'lead_events', 'sale_events') OR c.relname LIKE '%rollup%')
       AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.oid)
    UNION ALL
    SELECT t.root, i.inhrelid FROM tree t JOIN pg_inherits i ON i.inhparent = t.rel
  )
  SELECT root::regclass::text AS name, sum(pg_total_relation_size(rel))::float8 AS bytes, count(*)::int AS relations
    FROM tree GROUP BY root ORDER BY 1`;

async function storage(url: string, clicks: number, label: (s: string) => string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = (await client.query<{ name: string; bytes: number; relations: number }>(STORAGE_SQL)).rows;
    const rows: Row[] = [];
    let total = 0;
    for (const t of tables) {
      const count = Number((await client.query(`SELECT count(*) FROM ${t.name}`)).rows[0].count);
      total += t.bytes;
      const parts = t.relations > 1 ? `, ${t.relations - 1} partitions` : '';
      rows.push({
        name: label(`storage ${t.name} (${count} rows${parts}): MB / bytes per click`),
        value: `${(t.bytes / 1e6).toFixed(1)} / ${(t.bytes / clicks).toFixed(1)}`,
      });
    }
    rows.push({ name: label('storage, all of the above: MB / bytes per click'), value: `${(total / 1e6).toFixed(1)} / ${(total / clicks).toFixed(1)}` });
    const shape = (
      await client.query(
        `SELECT count(DISTINCT country)::int AS countries, count(DISTINCT referrer)::int AS referrers, count(DISTINCT browser)::int AS browsers,
                round(100 * avg(bot::int), 1)::text AS bots, round(100 * avg((partner_id IS NOT NULL)::int), 1)::text AS partner
           FROM clicks`,
      )
    ).rows[0];
    rows.push({
      name: label('data: countries / referrer hosts / browsers / % bots / % with partner'),
      value: `${shape.countries} / ${shape.referrers} / ${shape.browsers} / ${shape.bots} / ${shape.partner}`,
    });
    return rows;
  } finally {
    await client.end();
  }
}

/** What a load leaves for the timing: kept in the database itself, so a kept database can be timed again. */
interface Loaded {
  workspaceId: string;
  key: string;
  end: number;
  rows: Row[];
}

/** Seed, load N clicks through storeClicks, VACUUM ANALYZE, track conversions through the API. */
async function load(base: string, database: Database, clicks: number, label: (s: string) => string): Promise<Loaded> {
  const rows: Row[] = [];
  const { workspaceId, key, headers, links } = await seedWorkspace(base);
  const lookup = await openCountryLookup();
  const source = traffic(workspaceId, links, clicks);
  // The same 90 days for every N: ten times the clicks is ten times the traffic.
  const end = Date.now();
  const start = end - SPAN_DAYS * DAY;
  // History is loaded in minutes here, but lived through in production, where a link busy for a
  // day keeps its dimensions in rollups from the next midnight on (analytics_hot_links). So the
  // links this traffic makes busy are marked hot from the start, as a long-running service has them.
  const weights = links.map((_, r) => 1 / (r + 1) ** 1.05);
  const sum = weights.reduce((a, b) => a + b, 0);
  const hot = links.filter((_, r) => (clicks / SPAN_DAYS) * (weights[r]! / sum) >= HOT_LINK_CLICKS_PER_DAY);
  const firstMidnight = new Date(Math.floor(start / DAY) * DAY).toISOString();
  if (hot.length)
    await database.db.execute(
      sql`INSERT INTO analytics_hot_links (link_id, workspace_id, dims_from, urls_from, places_from)
          SELECT value::uuid, ${workspaceId}::uuid, ${firstMidnight}::timestamptz, ${firstMidnight}::timestamptz, ${firstMidnight}::timestamptz
          FROM jsonb_array_elements_text(${JSON.stringify(hot.map((l) => l.id))}::jsonb)`,
    );
  rows.push({ name: label(`hot links (≥ ${HOT_LINK_CLICKS_PER_DAY} clicks a day expected)`), value: String(hot.length) });
  const batches = Math.ceil(clicks / BATCH);
  const started = performance.now();
  let stored = 0;
  // Each writer takes a span of its own (writers on the same days wait on each other's rollup rows).
  const perWriter = Math.ceil(batches / WRITERS);
  const writer = async (first: number) => {
    for (let b = first; b < Math.min(batches, first + perWriter); b++) {
      const count = Math.min(BATCH, clicks - b * BATCH);
      const batch = source.batch(count, start + ((end - start) * b) / batches, start + ((end - start) * (b + 1)) / batches);
      // Writers at once may deadlock on shared rows, as instances can: the batch is rolled back whole and written again.
      await retryOnConflict(() => storeClicks(database, batch, lookup));
      // A 10-million run takes a while: say how far it is (stderr, apart from the table).
      if (++stored % 10 === 0)
        process.stderr.write(
          `analytics: ${(stored * BATCH).toLocaleString('en')} of ${clicks.toLocaleString('en')} clicks stored, ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
        );
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w * perWriter)));
  const writing = performance.now() - started;
  rows.push(
    {
      name: label(`storeClicks, ${batches} batches of ≤${BATCH}, ${WRITERS} writers: clicks/s (wall time of the load)`),
      value: (clicks / (writing / 1000)).toFixed(0),
    },
    { name: label('storeClicks, total'), ms: Math.round(writing) },
  );
  // Autovacuum may be off (it is on this machine): VACUUM sets the visibility map that
  // index-only scans need, as autovacuum would on a live table; ANALYZE gives the planner its statistics.
  const t0 = performance.now();
  await database.withSession((s) => s.exec('VACUUM ANALYZE'));
  rows.push({ name: label('VACUUM ANALYZE after the load'), ms: Math.round(performance.now() - t0) });

  const { leads, sales } = await trackConversions(base, headers, source.sampledClickIds);
  rows.push({ name: label('leads / sales tracked through the API'), value: `${leads} / ${sales}` });
  const loaded = { workspaceId, key, end, rows };
  await database.withSession((s) =>
    s.exec(`CREATE TABLE bench_analytics_load (state jsonb); INSERT INTO bench_analytics_load VALUES ('${JSON.stringify(loaded).replaceAll("'", "''")}')`),
  );
  return loaded;
}

/** A load this database already holds (ANALYTICS_BENCH_DATABASE), or null. */
async function loadedBefore(database: Database): Promise<Loaded | null> {
  const found = (await database.db.execute(sql`SELECT to_regclass('bench_analytics_load') IS NOT NULL AS present`)) as unknown as {
    rows: { present: boolean }[];
  };
  if (!found.rows[0]?.present) return null;
  const state = (await database.db.execute(sql`SELECT state FROM bench_analytics_load`)) as unknown as { rows: { state: Loaded }[] };
  return state.rows[0]?.state ?? null;
}

/** Every groupBy (and interval) over all time, the busiest link and 30 days; the click list; storage. */
async function measure(base: string, url: string, clicks: number, loaded: Loaded, label: (s: string) => string): Promise<Row[]> {
  const rows: Row[] = [];
  const headers = { authorization: `Bearer ${loaded.key}` };
  const doc = await call(base, 'GET', '/api/openapi.json', {});
  const groupBys = queryEnum(doc, 'groupBy');
  const intervals = queryEnum(doc, 'interval');
  const byLink: Json[] = await call(base, 'GET', '/api/analytics?groupBy=link&take=1', headers);
  const busiest = byLink[0].key as string;
  const today = new Date(loaded.end).toISOString().slice(0, 10);
  const monthAgo = new Date(loaded.end - 30 * DAY).toISOString().slice(0, 10);
  const variants: [string, string][] = [
    ['all time', ''],
    [`linkId=busiest (${byLink[0].clicks} clicks)`, `&linkId=${busiest}`],
    ['last 30 days', `&startDate=${monthAgo}&endDate=${today}`],
  ];
  // Each row beside the 30 days before (operations.md §14), where the service offers compare.
  if (queryEnum(doc, 'compare').includes('previous'))
    variants.push(['last 30 days, compare=previous', `&startDate=${monthAgo}&endDate=${today}&compare=previous`]);
  for (const [variant, filter] of variants) {
    for (const by of groupBys) {
      const queries = by === 'timeseries' ? intervals.map((i) => [`timeseries&interval=${i}`, `timeseries (${i})`]) : [[by, by]];
      for (const [query, name] of queries) {
        rows.push({ name: label(`groupBy=${name}, ${variant}: p50 / p95 ms`), value: await time(base, headers, `groupBy=${query}${filter}`) });
      }
    }
  }
  rows.push({ name: label('click list take=50, all time: p50 / p95 ms'), value: await time(base, headers, 'take=50') });
  rows.push(...(await storage(url, clicks, label)));
  return rows;
}

/**
 * A load made before migration 0030 has its past days' referrer URLs cut by the maintenance the
 * server runs at its start: the timings wait until no past day is marked and none holds more
 * non-converting URL rows than a cut leaves (ten minutes at most: 90 days of 10 M clicks). Not
 * by its log line: the server's log is buffered until 4 KB.
 */
async function referrerDaysCut(database: Database, workspaceId: string): Promise<void> {
  const [table] = await database.withSession((s) => s.query<{ t: string | null }>(`SELECT to_regclass('analytics_url_days')::text AS t`));
  if (!table?.t) return;
  const pending = `SELECT EXISTS (SELECT 1 FROM analytics_url_days WHERE day < date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
      OR EXISTS (SELECT 1 FROM analytics_rollups WHERE workspace_id = $1 AND scope_id = $1 AND dim = 'referrer_url' AND level = 'd'
        AND bucket < date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AND leads = 0 AND sales = 0 AND amount = 0
        GROUP BY bucket HAVING count(*) > ${URLS_KEPT_PER_DAY + 1}) AS pending`;
  for (const until = Date.now() + 600_000; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
    const [state] = await database.withSession((s) => s.query<{ pending: boolean }>(pending, [workspaceId]));
    if (!state?.pending) return;
  }
  process.stderr.write('analytics: the referrer-URL cut had not finished after ten minutes; timing anyway\n');
}

/** One N on the database at `url`: load it (unless it holds a load already), then time and measure. */
async function benchClicks(url: string, clicks: number, loadOnly: boolean): Promise<Row[]> {
  const label = (s: string) => `${clicks.toLocaleString('en')} clicks · ${s}`;
  const server = await startServer({ DATABASE_URL: url });
  await healthy(server.base);
  // Opened after the server has migrated the database (startServer waits for /healthz).
  const database = await openPostgres(url, 2);
  try {
    const before = await loadedBefore(database);
    if (before) process.stderr.write(`analytics: timing the ${clicks.toLocaleString('en')} clicks loaded before in ${new URL(url).pathname.slice(1)}\n`);
    const loaded = before ?? (await load(server.base, database, clicks, label));
    if (loadOnly) return loaded.rows;
    if (before) await referrerDaysCut(database, before.workspaceId);
    return [...loaded.rows, ...(await measure(server.base, url, clicks, loaded, label))];
  } finally {
    await database.close();
    await server.stop();
  }
}

/**
 * Each N of ANALYTICS_BENCH_CLICKS on a database of its own: DATABASE_URL's (fresh) for the first,
 * new ones after, all dropped at the end. With ANALYTICS_BENCH_DATABASE=name, N's database is
 * name_N on the same server and is kept; one that holds a load already is timed without loading
 * again, and ANALYTICS_BENCH_LOAD_ONLY=1 stops after loading — a 10-million load can share the
 * machine, and its timing wait for an idle one.
 */
export async function benchAnalytics(): Promise<Row[]> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('benchAnalytics needs DATABASE_URL (a fresh PostgreSQL database)');
  const counts = (process.env.ANALYTICS_BENCH_CLICKS ?? '1000000').split(',').map((s) => Number(s.trim()));
  if (counts.some((n) => !Number.isSafeInteger(n) || n < 1000)) throw new Error('ANALYTICS_BENCH_CLICKS: a comma list of click counts, each at least 1000');
  const kept = process.env.ANALYTICS_BENCH_DATABASE;
  if (kept !== undefined && !/^[a-z_][a-z0-9_]{0,40}$/.test(kept)) throw new Error('ANALYTICS_BENCH_DATABASE: a lower-case database name prefix');
  const loadOnly = process.env.ANALYTICS_BENCH_LOAD_ONLY === '1';
  if (loadOnly && !kept) throw new Error('ANALYTICS_BENCH_LOAD_ONLY=1 needs ANALYTICS_BENCH_DATABASE: a load that is not kept cannot be timed later');
  const rows: Row[] = [];
  for (const [i, clicks] of counts.entries()) {
    // Each N's table is printed as soon as it is measured: a 10-million run takes long, and
    // stopping it must not lose the smaller figures.
    const report = (found: Row[]) => {
      console.table(found);
      rows.push(...found);
    };
    if (i === 0 && !kept) {
      report(await benchClicks(url, clicks, loadOnly));
      continue;
    }
    const fresh = new URL(url);
    const name = kept ? `${kept}_${clicks}` : `${fresh.pathname.slice(1)}_${i}`;
    fresh.pathname = `/${name}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount;
    if (!exists) await admin.query(`CREATE DATABASE ${name}`);
    try {
      report(await benchClicks(fresh.href, clicks, loadOnly));
    } finally {
      if (!kept) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchAnalytics());
}
