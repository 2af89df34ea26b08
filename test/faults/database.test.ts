/**
 * PostgreSQL restarted while the service runs (PostgreSQL runs only).
 *
 * The machine's PostgreSQL is shared with the rest of the suite, so it is never stopped: the
 * app reaches it through a TCP proxy (test/helpers/tcp-proxy.ts), and "the server is away"
 * means the proxy stops listening and destroys every connection it carries (connections die,
 * new ones are refused); "the server is back" means it listens again on the same port. The app works on a
 * database of its own, created here and dropped at the end.
 *
 * While PostgreSQL is away: what needs the database answers 503 `unavailable` with
 * Retry-After (promptly, not after a hang); redirects of cached links keep answering 302 and
 * their clicks wait in the queue; /readyz answers 503 and /healthz 200. When it is back, the
 * same process serves again and every click handed out meanwhile reaches the clicks table.
 */
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer, onPostgres, onRedis, startTestApp, type TestApp } from '../helpers/app.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { answered, sleep, within } from '../helpers/wait.js';

interface ErrorBody {
  error: { en: string; ar: string; code: string };
}

function expectUnavailable(res: LightMyRequestResponse) {
  expect(res.statusCode, res.body).toBe(503);
  const body = res.json<ErrorBody>();
  expect(body.error.code).toBe('unavailable');
  expect(body.error.en.length).toBeGreaterThan(0);
  expect(body.error.ar.length).toBeGreaterThan(0);
  expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
}

/**
 * Errors nothing caught while `fn` ran. In production an uncaught exception ends the process,
 * so a database outage must never produce one (vitest also reports them).
 */
async function uncaughtDuring(fn: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const listener = (err: unknown) => seen.push(err);
  process.on('uncaughtException', listener);
  try {
    await fn();
    // A window for late 'error' events of connections that died: what is looked for is their
    // absence, which no poll can see happen, so this one wait stays fixed.
    await sleep(300);
  } finally {
    process.off('uncaughtException', listener);
  }
  return seen;
}

const describeErrors = (errors: unknown[]) => errors.map((e) => (e instanceof Error ? e.message : String(e))).join('; ');

const UA = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.runIf(onPostgres)('PostgreSQL restarted while the service runs', () => {
  const real = new URL(process.env.DATABASE_URL ?? 'postgres://localhost/none');
  const dbName = `lt_fault_${randomBytes(6).toString('hex')}`;
  const pgProxy = TcpProxy.to(real, 5432);
  // With Redis, the app reaches it through a proxy too (never cut): the proxy's connections
  // let this file see in Redis when the app's invalidation subscriber is up.
  let redisProxy: TcpProxy | undefined;
  let direct: pg.Client;
  let created = false;
  let app: TestApp;

  /** Runs SQL on the test database directly (not through the proxy). */
  async function sqlDirect<T>(text: string, params: unknown[] = []): Promise<T[]> {
    const url = new URL(real.href);
    url.pathname = `/${dbName}`;
    const client = new pg.Client({ connectionString: url.href });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    direct = new pg.Client({ connectionString: real.href });
    await direct.connect();
    await direct.query(`CREATE DATABASE ${dbName}`);
    created = true;
    await pgProxy.start();
    const viaProxy = new URL(pgProxy.url(real));
    viaProxy.pathname = `/${dbName}`;
    const env: Record<string, string> = { DATABASE_URL: viaProxy.href };
    if (onRedis) {
      const redisReal = new URL(process.env.REDIS_URL!);
      redisProxy = TcpProxy.to(redisReal, 6379);
      await redisProxy.start();
      env.REDIS_URL = redisProxy.url(redisReal);
    }
    app = await startTestApp({ env });
    if (redisProxy) {
      // A link is cached for long only once invalidations flow: wait (bounded) for the
      // subscriber (3 channels) before the cache is warmed.
      const redis = new Redis(process.env.REDIS_URL!, { lazyConnect: true });
      await redis.connect();
      try {
        const ports = () => redisProxy!.upstreamPorts();
        const up = await within(10_000, async () => {
          const list = (await redis.client('LIST')) as string;
          return list.split('\n').some((line) => {
            const port = Number(/ addr=[^ ]*:(\d+) /.exec(` ${line}`)?.[1]);
            return ports().has(port) && Number(/ sub=(\d+)/.exec(line)?.[1] ?? 0) >= 3;
          });
        });
        if (!up) throw new Error('the app did not subscribe to Redis');
        // The app counts itself subscribed on Redis's reply, a moment after Redis lists it; a
        // test cannot read that flag (the bus is not exposed), so this margin stays fixed.
        await sleep(200);
      } finally {
        redis.disconnect();
      }
    }
  });

  afterAll(async () => {
    // The proxy must be up for the app to close cleanly (it flushes clicks).
    if (app) {
      await pgProxy.start().catch(() => undefined);
      // Bounded: the database is dropped (and its connections ended) whatever happens here.
      await Promise.race([app.close(), sleep(20_000)]);
    }
    await pgProxy.stop();
    await redisProxy?.stop();
    if (direct) {
      if (created) await direct.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await direct.end();
    }
  });

  test('503 with Retry-After while it is away, cached redirects keep working, then recovery without a restart and no click lost', async () => {
    const ws = await app.workspace();
    // A key never used before the outage: its lookup needs the database too.
    const unused = await ws.newKey();
    const send = (key: string, method: 'GET' | 'POST', url: string, payload?: unknown) =>
      app.inject({ method, url, headers: bearer(key), ...(payload === undefined ? {} : { payload: payload as object }) });

    const collection = await send(ws.key, 'POST', '/api/collections', [{ name: 'Outage' }]);
    expect(collection.statusCode, collection.body).toBe(201);
    const made = await send(ws.key, 'POST', '/api/links', [{ url: 'https://shop.example/landing', collectionId: collection.json<{ id: string }[]>()[0]!.id }]);
    expect(made.statusCode, made.body).toBe(201);
    const link = made.json<{ id: string; shortUrl: string }[]>()[0]!;
    const path = new URL(link.shortUrl).pathname;
    const visit = () => app.inject({ method: 'GET', url: path, headers: { 'user-agent': UA } });

    // Warm the cache with one redirect; its click is written as usual.
    const warm = await visit();
    expect(warm.statusCode).toBe(302);
    const warmId = new URL(warm.headers.location as string).searchParams.get('ltid')!;
    expect(warmId).toMatch(UUID);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);

    // PostgreSQL goes away.
    await pgProxy.stop();

    // Everything that needs the database: 503 `unavailable` with Retry-After, promptly.
    const BOUND = 10_000;
    expectUnavailable(await answered('GET /api/links', BOUND, send(ws.key, 'GET', '/api/links')));
    expectUnavailable(await answered('POST /api/tags', BOUND, send(ws.key, 'POST', '/api/tags', [{ name: 'during-outage' }])));
    expectUnavailable(await answered('GET /api/tags (key not cached)', BOUND, send(unused.key, 'GET', '/api/tags')));
    expectUnavailable(await answered('GET /admin/workspaces', BOUND, app.admin('GET', '/workspaces')));
    const ready = await answered('GET /readyz', BOUND, app.inject({ method: 'GET', url: '/readyz' }));
    expect(ready.statusCode).toBe(503);
    const health = await answered('GET /healthz', BOUND, app.inject({ method: 'GET', url: '/healthz' }));
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });

    // The cached link keeps redirecting, each visit with a click id of its own.
    const outageIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await answered('redirect of a cached link', BOUND, visit());
      expect(res.statusCode, res.body).toBe(302);
      const location = new URL(res.headers.location as string);
      expect(location.origin + location.pathname).toBe('https://shop.example/landing');
      outageIds.push(location.searchParams.get('ltid')!);
    }
    expect(outageIds.every((id) => UUID.test(id))).toBe(true);
    expect(new Set([warmId, ...outageIds]).size).toBe(6);
    // Still away a little later: still 503, not a hang or a 500.
    expectUnavailable(await answered('GET /api/links (again)', BOUND, send(ws.key, 'GET', '/api/links')));

    // PostgreSQL is back on the same address: the same process serves again (bounded poll).
    await pgProxy.start();
    let last: LightMyRequestResponse | undefined;
    const recovered = await within(15_000, async () => (last = await send(ws.key, 'GET', '/api/links')).statusCode === 200);
    expect(recovered, `still ${last?.statusCode} ${last?.body}`).toBe(true);
    expect(last!.json<{ id: string }[]>().map((l) => l.id)).toEqual([link.id]);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    const fresh = await send(unused.key, 'GET', '/api/tags');
    expect(fresh.statusCode, fresh.body).toBe(200);
    // The write answered 503 was not made.
    expect(fresh.json()).toEqual([]);
    const tag = await send(ws.key, 'POST', '/api/tags', [{ name: 'after-outage' }]);
    expect(tag.statusCode, tag.body).toBe(201);

    // Every click handed out during the outage reaches the clicks table (the queue retries).
    let stored = new Set<string>();
    const allWritten = await within(15_000, async () => {
      stored = new Set((await sqlDirect<{ id: string }>('select id from clicks where link_id = $1', [link.id])).map((r) => r.id));
      return [warmId, ...outageIds].every((id) => stored.has(id));
    });
    expect(allWritten, `missing: ${[warmId, ...outageIds].filter((id) => !stored.has(id)).join(', ')}`).toBe(true);
    // Each exactly once.
    expect(stored.size).toBe(6);

    // And a redirect after recovery is recorded too.
    const after = await visit();
    expect(after.statusCode).toBe(302);
  }, 90_000);

  test('cut under load: every answer is a success or a 503 (never a 500 or a hang), and every click and 201 is kept', async () => {
    const ws = await app.workspace();
    const send = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
      app.inject({ method, url, headers: bearer(ws.key), ...(payload === undefined ? {} : { payload: payload as object }) });
    const collection = await send('POST', '/api/collections', [{ name: 'Load' }]);
    expect(collection.statusCode, collection.body).toBe(201);
    const made = await send('POST', '/api/links', [{ url: 'https://shop.example/load', collectionId: collection.json<{ id: string }[]>()[0]!.id }]);
    expect(made.statusCode, made.body).toBe(201);
    const link = made.json<{ id: string; shortUrl: string }[]>()[0]!;
    const path = new URL(link.shortUrl).pathname;
    expect((await app.inject({ method: 'GET', url: path, headers: { 'user-agent': UA } })).statusCode).toBe(302);

    const statuses = new Map<string, number>();
    const count = (what: string) => statuses.set(what, (statuses.get(what) ?? 0) + 1);
    const clickIds: string[] = [];
    const createdTags: string[] = [];
    let stop = false;
    let n = 0;
    const BOUND = 10_000;
    const worker = async (kind: number) => {
      while (!stop) {
        const i = n++;
        if (kind === 0) {
          const res = await answered('redirect', BOUND, app.inject({ method: 'GET', url: path, headers: { 'user-agent': UA } }));
          count(`redirect ${res.statusCode}`);
          if (res.statusCode === 302) clickIds.push(new URL(res.headers.location as string).searchParams.get('ltid')!);
        } else if (kind === 1) {
          const res = await answered('GET /api/links', BOUND, send('GET', '/api/links'));
          count(`list ${res.statusCode}`);
          if (res.statusCode === 503) expectUnavailable(res);
        } else {
          const name = `load-${i}`;
          const res = await answered('POST /api/tags', BOUND, send('POST', '/api/tags', [{ name }]));
          count(`tag ${res.statusCode}`);
          if (res.statusCode === 201) createdTags.push(name);
          if (res.statusCode === 503) expectUnavailable(res);
        }
        await sleep(10); // pacing: a steady load, not a wait for anything
      }
    };
    const answeredAs = (what: string) => statuses.get(what) ?? 0;
    /** Polls (bounded) until `check` holds, else fails naming `what` and what was answered so far. */
    const until = async (what: string, ms: number, check: () => boolean) =>
      expect(await within(ms, async () => check(), 20), `${what}: ${JSON.stringify([...statuses])}`).toBe(true);
    const uncaught = await uncaughtDuring(async () => {
      const workers = [0, 0, 1, 1, 2, 2, 2, 2].map(worker);
      try {
        // The load is under way (each kind answered) before the cut…
        await until('load before the cut', 15_000, () => ['redirect 302', 'list 200', 'tag 201'].every((what) => answeredAs(what) > 0));
        await pgProxy.stop();
        // …and the outage is met under load (reads and writes answered 503) before PostgreSQL comes back.
        await until('a 503 during the outage', 15_000, () => answeredAs('list 503') > 0 && answeredAs('tag 503') > 0);
        await pgProxy.start();
        // Load goes on until the API answers again (bounded), then until the load itself is served again.
        const back = await within(15_000, async () => (await send('GET', '/api/links')).statusCode === 200);
        expect(back).toBe(true);
        const [lists, tags] = [answeredAs('list 200'), answeredAs('tag 201')];
        await until('load served after recovery', 15_000, () => answeredAs('list 200') > lists && answeredAs('tag 201') > tags);
      } finally {
        stop = true;
        await Promise.all(workers);
      }
    });
    expect(describeErrors(uncaught), 'uncaught exceptions (the process would have died)').toBe('');

    const seen = [...statuses.keys()];
    expect(
      seen.filter((s) => !/^(redirect 302|list (200|503)|tag (201|503))$/.test(s)),
      JSON.stringify([...statuses]),
    ).toEqual([]);
    // The outage was noticed, and redirects never stopped.
    expect(
      seen.some((s) => s.endsWith(' 503')),
      JSON.stringify([...statuses]),
    ).toBe(true);
    expect(clickIds.length).toBeGreaterThan(0);

    let stored = new Set<string>();
    const allWritten = await within(15_000, async () => {
      stored = new Set((await sqlDirect<{ id: string }>('select id from clicks where link_id = $1', [link.id])).map((r) => r.id));
      return clickIds.every((id) => stored.has(id));
    });
    expect(allWritten, `${clickIds.filter((id) => !stored.has(id)).length} of ${clickIds.length} clicks lost`).toBe(true);

    // Every tag answered 201 exists (a 503 may or may not have committed: its connection died).
    const tags = await send('GET', '/api/tags?take=5000');
    expect(tags.statusCode, tags.body).toBe(200);
    const names = new Set(tags.json<{ name: string }[]>().map((t) => t.name));
    expect(createdTags.filter((name) => !names.has(name))).toEqual([]);
  }, 90_000);

  test('a 10,000-link bulk write cut mid-transaction: 503, nothing written, no uncaught error, and the same write succeeds after', async () => {
    const ws = await app.workspace();
    const send = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
      app.inject({ method, url, headers: bearer(ws.key), ...(payload === undefined ? {} : { payload: payload as object }) });
    const collection = await send('POST', '/api/collections', [{ name: 'Bulk' }]);
    expect(collection.statusCode, collection.body).toBe(201);
    const tags = await send('POST', '/api/tags', [{ name: 'one' }, { name: 'two' }]);
    expect(tags.statusCode, tags.body).toBe(201);
    const collectionId = collection.json<{ id: string }[]>()[0]!.id;
    const tagIds = tags.json<{ id: string }[]>().map((t) => t.id);
    const items = Array.from({ length: 10_000 }, (_, i) => ({ url: `https://shop.example/p/${i}`, collectionId, tagIds }));
    const countLinks = async () => Number((await sqlDirect<{ n: string }>('select count(*) as n from links where workspace_id = $1', [ws.id]))[0]!.n);

    let res: LightMyRequestResponse | undefined;
    const uncaught = await uncaughtDuring(async () => {
      const pending = send('POST', '/api/links', items);
      // Cut once the transaction has written something (it holds a transaction id).
      const writing = await within(30_000, async () => {
        const found = await direct.query('select 1 from pg_stat_activity where datname = $1 and backend_xid is not null', [dbName]);
        return (found.rowCount ?? 0) > 0;
      });
      await pgProxy.stop();
      res = await answered('POST /api/links cut mid-write', 20_000, pending);
      expect(writing, `no write seen; the request answered ${res.statusCode}`).toBe(true);
      await pgProxy.start();
    });
    expect(describeErrors(uncaught), 'uncaught exceptions (the process would have died)').toBe('');
    expectUnavailable(res!);

    // The server rolls the transaction back: nothing of it is ever visible.
    const gone = await within(15_000, async () => {
      const found = await direct.query('select 1 from pg_stat_activity where datname = $1 and backend_xid is not null', [dbName]);
      return (found.rowCount ?? 0) === 0;
    });
    expect(gone).toBe(true);
    expect(await countLinks()).toBe(0);

    // Back: the same request succeeds whole.
    let again: LightMyRequestResponse | undefined;
    expect(await within(15_000, async () => (again = await send('POST', '/api/links', items)).statusCode !== 503)).toBe(true);
    expect(again!.statusCode, again!.body.slice(0, 300)).toBe(201);
    expect(await countLinks()).toBe(10_000);
    const tagged = await sqlDirect<{ n: string }>('select count(*) as n from link_tags lt join links l on l.id = lt.link_id where l.workspace_id = $1', [
      ws.id,
    ]);
    expect(Number(tagged[0]!.n)).toBe(20_000);
  }, 120_000);
});
