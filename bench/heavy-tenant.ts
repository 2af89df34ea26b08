/**
 * One workspace's expensive requests against another's plain ones (issue 41 M1), on PostgreSQL:
 * workspace A has HEAVY_LINKS links (POST /api/links) and HEAVY_CLICKS clicks over 30 days
 * (generate_series into clicks and link_daily_stats, then ANALYZE, as links-stats.ts does);
 * workspace B has 50 links. B's GET /api/links?take=50 is timed one after another, alone and
 * then while 30 clients of A each keep one GET /api/links?withStats=true&orderBy=clicks&take=5000
 * in flight (a refused one waits its Retry-After, at most 1 s, and asks again) for WINDOW_MS.
 */
import pg from 'pg';
import { SCOPES } from '../src/core/scopes.js';
import { BENCH_ADMIN, startServer } from './server.js';

type Row = { name: string; value: string };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const LINKS = Number(process.env.HEAVY_LINKS ?? 30_000);
const CLICKS = Number(process.env.HEAVY_CLICKS ?? 100_000);
const CONCURRENT = 30;
const WINDOW_MS = Number(process.env.HEAVY_WINDOW_MS ?? 20_000);
const HEAVY = '/api/links?withStats=true&orderBy=clicks&take=5000';

async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Json> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

async function workspace(base: string, name: string, links: number): Promise<{ id: string; headers: Record<string, string> }> {
  const admin = { authorization: `Bearer ${BENCH_ADMIN}` };
  const ws = await call(base, 'POST', '/admin/workspaces', admin, { name, plan: 'enterprise' });
  await call(base, 'PATCH', `/admin/workspaces/${ws.id}`, admin, { rateLimitPerMinute: 1_000_000 });
  const { key } = await call(base, 'POST', `/admin/workspaces/${ws.id}/keys`, admin, { name: 'bench', scopes: SCOPES });
  const headers = { authorization: `Bearer ${key}` };
  const [collection] = await call(base, 'POST', '/api/collections', headers, [{ name: 'bench' }]);
  for (let done = 0; done < links; done += 5000) {
    const items = Array.from({ length: Math.min(5000, links - done) }, (_, j) => ({
      url: `https://shop.example.com/${name}/${done + j}`,
      collectionId: collection.id,
    }));
    await call(base, 'POST', '/api/links', headers, items);
  }
  return { id: ws.id, headers };
}

async function loadClicks(workspaceId: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query(`CREATE TEMP TABLE bench_links AS SELECT row_number() OVER (ORDER BY created_at, seq) - 1 AS n, id FROM links WHERE workspace_id = $1`, [
      workspaceId,
    ]);
    await client.query(
      `INSERT INTO clicks (id, workspace_id, link_id, created_at, country, device, browser, os, referrer, bot, trigger)
       SELECT gen_random_uuid(), $1::uuid, l.id, now() - random() * interval '29 days', 'DE', 'desktop', 'Chrome', 'Mac OS', 'direct', false, 'link'
       FROM (SELECT floor($2::int * random() ^ 3)::bigint AS n FROM generate_series(1, $3::int)) g JOIN bench_links l ON l.n = g.n`,
      [workspaceId, LINKS, CLICKS],
    );
    await client.query(
      `INSERT INTO link_daily_stats (workspace_id, day, link_id, slot, clicks, leads, sales)
       SELECT workspace_id, (created_at AT TIME ZONE 'UTC')::date, link_id, 0, count(*), 0, 0 FROM clicks WHERE workspace_id = $1 GROUP BY 1, 2, 3`,
      [workspaceId],
    );
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** B's list timed one request after another until `until()` says stop; latencies and statuses. */
async function timeOther(base: string, headers: Record<string, string>, until: () => boolean): Promise<{ ms: number[]; statuses: Map<number, number> }> {
  const ms: number[] = [];
  const statuses = new Map<number, number>();
  while (!until()) {
    const t0 = performance.now();
    const res = await fetch(`${base}/api/links?take=50`, { headers });
    await res.text();
    ms.push(performance.now() - t0);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  }
  return { ms: ms.sort((a, b) => a - b), statuses };
}

const summary = (r: { ms: number[]; statuses: Map<number, number> }) =>
  `n=${r.ms.length} p50=${pct(r.ms, 50).toFixed(1)} ms p99=${pct(r.ms, 99).toFixed(1)} ms max=${r.ms.at(-1)!.toFixed(1)} ms; statuses ${JSON.stringify(Object.fromEntries(r.statuses))}`;

export async function benchHeavyTenant(): Promise<Row[]> {
  const server = await startServer({ DATABASE_URL: process.env.DATABASE_URL!, LOG_LEVEL: 'warn' });
  try {
    const a = await workspace(server.base, 'a', LINKS);
    const b = await workspace(server.base, 'b', 50);
    await loadClicks(a.id);
    const rows: Row[] = [{ name: 'data', value: `A: ${LINKS.toLocaleString('en')} links, ${CLICKS.toLocaleString('en')} clicks; B: 50 links` }];
    const one = performance.now();
    await call(server.base, 'GET', HEAVY, a.headers);
    rows.push({ name: `A's ${HEAVY} alone`, value: `${(performance.now() - one).toFixed(0)} ms` });
    let count = 0;
    rows.push({ name: "B's GET /api/links?take=50 alone (200 in a row)", value: summary(await timeOther(server.base, b.headers, () => count++ >= 200)) });
    const end = Date.now() + WINDOW_MS;
    const heavy = new Map<number, number>();
    const heavyMs: number[] = [];
    const attack = Array.from({ length: CONCURRENT }, async () => {
      while (Date.now() < end) {
        const t0 = performance.now();
        const res = await fetch(`${server.base}${HEAVY}`, { headers: a.headers });
        await res.text();
        heavy.set(res.status, (heavy.get(res.status) ?? 0) + 1);
        if (res.ok) heavyMs.push(performance.now() - t0);
        else await new Promise((r) => setTimeout(r, Math.min(1000, Number(res.headers.get('retry-after') ?? 1) * 1000)));
      }
    });
    const during = await timeOther(server.base, b.headers, () => Date.now() >= end);
    await Promise.all(attack);
    rows.push({ name: `B's list during ${CONCURRENT} concurrent heavy lists of A (${WINDOW_MS / 1000} s)`, value: summary(during) });
    heavyMs.sort((x, y) => x - y);
    rows.push({
      name: "A's heavy lists in that window",
      value: `statuses ${JSON.stringify(Object.fromEntries(heavy))}; answered 200 p50=${heavyMs.length ? pct(heavyMs, 50).toFixed(0) : '-'} ms`,
    });
    return rows;
  } finally {
    await server.stop();
  }
}
