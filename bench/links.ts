/**
 * Links bulk scenario: POST, PUT and DELETE of 10,000 links and GET take=5000, through HTTP
 * (Fastify inject) on the database named by DATABASE_URL (PGlite in memory when unset).
 *
 * On PostgreSQL each figure has its floor beside it (bench/links-floor.ts: the same rows written
 * or read by a bare `pg` client, right after the API's step) and the ratio of the two, so the
 * service's own cost shows apart from the database's. Each HTTP step also reports the largest
 * RSS of the process, sampled every 20 ms while it runs (and once at its end).
 */
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.js';
import { SCOPES } from '../src/core/scopes.js';
import { createRuntime } from '../src/runtime.js';
import { openLinksFloor, type LinksFloor } from './links-floor.js';

const ADMIN = 'bench-admin-token-0123456789';
const ITEMS = 10_000;
const TAKE = 5000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const MB = (bytes: number) => String(Math.round(bytes / 2 ** 20));

const STEPS = {
  post: { name: 'links POST 10k', floor: 'bare INSERT' },
  put: { name: 'links PUT 10k', floor: 'bare UPDATE' },
  get: { name: `links GET take=${TAKE}`, floor: 'bare SELECT + count' },
  del: { name: 'links DELETE 10k', floor: 'bare soft-delete UPDATE' },
} as const;
type Step = keyof typeof STEPS;
type Row = { name: string; ms?: number; value?: string };
type Reply = { statusCode: number; body: string; json: () => unknown };

/** Runs `fn` while sampling process.memoryUsage's RSS every 20 ms; returns its result and the largest sample. */
async function withRssMax<T>(fn: () => Promise<T>): Promise<{ result: T; rss: number }> {
  let rss = process.memoryUsage.rss();
  const timer = setInterval(() => (rss = Math.max(rss, process.memoryUsage.rss())), 20);
  try {
    const result = await fn();
    return { result, rss: Math.max(rss, process.memoryUsage.rss()) };
  } finally {
    clearInterval(timer);
  }
}

/** What each run measured, per step: HTTP and floor milliseconds, and the largest RSS of any run. */
class Figures {
  http = { post: [], put: [], get: [], del: [] } as Record<Step, number[]>;
  floor = { post: [], put: [], get: [], del: [] } as Record<Step, number[]>;
  rss = { post: 0, put: 0, get: 0, del: 0 } as Record<Step, number>;

  async timeHttp(step: Step, fn: () => Promise<Reply>): Promise<Reply> {
    const t0 = performance.now();
    const { result: res, rss } = await withRssMax(fn);
    this.http[step].push(performance.now() - t0);
    this.rss[step] = Math.max(this.rss[step], rss);
    if (res.statusCode >= 300) throw new Error(`${STEPS[step].name}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res;
  }

  async timeFloor(step: Step, floor: LinksFloor | undefined, fn: (f: LinksFloor) => Promise<number>): Promise<void> {
    if (floor) this.floor[step].push(await fn(floor));
  }

  rows(idleRss: number): Row[] {
    const out: Row[] = [];
    for (const step of Object.keys(STEPS) as Step[]) {
      const { name, floor } = STEPS[step];
      const http = median(this.http[step]);
      out.push({ name, ms: Math.round(http) });
      if (this.floor[step].length) {
        const f = median(this.floor[step]);
        out.push({ name: `${name} floor (${floor})`, ms: Math.round(f) }, { name: `${name} / floor`, value: `${(http / f).toFixed(1)}×` });
      }
      out.push({ name: `${name} RSS max MB`, value: MB(this.rss[step]) });
    }
    // Last, so the table's columns read name, ms, value.
    return [...out, { name: 'links RSS idle MB (before the first run)', value: MB(idleRss) }];
  }
}

export async function benchLinks(runs = 3): Promise<Row[]> {
  const databaseUrl = process.env.DATABASE_URL;
  const config = loadConfig({
    DATA_DIR: 'memory://',
    DATABASE_URL: databaseUrl,
    SECRET: 'bench-secret-0123456789-0123456789-0123456789',
    ADMIN_TOKEN: ADMIN,
    LOG_LEVEL: 'silent',
  });
  const rt = await createRuntime(config);
  // The floor needs PostgreSQL (the runner's fresh database); on PGlite only the HTTP figures are taken.
  const floor = databaseUrl && /^postgres(ql)?:/.test(databaseUrl) ? await openLinksFloor(databaseUrl) : undefined;
  const inject = rt.app.inject.bind(rt.app);
  const admin = { authorization: `Bearer ${ADMIN}` };
  const figures = new Figures();
  const idleRss = process.memoryUsage.rss();
  try {
    for (let run = 0; run < runs; run++) {
      const ws = (await inject({ method: 'POST', url: '/admin/workspaces', headers: admin, payload: { name: 'bench', plan: 'enterprise' } })).json();
      await inject({ method: 'PATCH', url: `/admin/workspaces/${ws.id}`, headers: admin, payload: { rateLimitPerMinute: 1_000_000 } });
      const key = (await inject({ method: 'POST', url: `/admin/workspaces/${ws.id}/keys`, headers: admin, payload: { name: 'b', scopes: SCOPES } })).json().key;
      const h = { authorization: `Bearer ${key}` };
      const [collection] = (await inject({ method: 'POST', url: '/api/collections', headers: h, payload: [{ name: 'c' }] })).json();
      const tags = (await inject({ method: 'POST', url: '/api/tags', headers: h, payload: [{ name: 'a' }, { name: 'b' }] })).json();
      const items = Array.from({ length: ITEMS }, (_, i) => ({
        url: `https://example.com/p/${i}?x=1`,
        collectionId: collection.id,
        tagIds: [tags[i % 2].id],
        title: `Link ${i}`,
        utm: { source: 'bench', campaign: `c${i % 10}` },
        externalId: `ext-${i}`,
        password: i % 5 === 0 ? 'secret' : undefined,
      }));
      const created = await figures.timeHttp('post', () => inject({ method: 'POST', url: '/api/links', headers: h, payload: items }));
      const ids = (created.json() as { id: string }[]).map((l) => l.id);
      await figures.timeFloor('post', floor, (f) => f.insert(ws.id, ids));
      const renamed = ids.map((id, i) => ({ id, title: `Renamed ${i}`, tagIds: [tags[(i + 1) % 2].id] }));
      await figures.timeHttp('put', () => inject({ method: 'PUT', url: '/api/links', headers: h, payload: renamed }));
      await figures.timeFloor('put', floor, (f) => f.update(ws.id, ids));
      // A read is short and swings more than the writes: five of each per run, alternating.
      for (let read = 0; read < 5; read++) {
        const page = await figures.timeHttp('get', () => inject({ method: 'GET', url: `/api/links?take=${TAKE}`, headers: h }));
        await figures.timeFloor('get', floor, (f) =>
          f.list(
            ws.id,
            TAKE,
            (page.json() as { id: string }[]).map((l) => l.id),
            ids.length,
          ),
        );
      }
      await figures.timeHttp('del', () => inject({ method: 'DELETE', url: '/api/links', headers: h, payload: ids }));
      await figures.timeFloor('del', floor, (f) => f.remove(ws.id, ids));
    }
  } finally {
    await floor?.close();
    await rt.close();
  }
  return figures.rows(idleRss);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchLinks());
}
