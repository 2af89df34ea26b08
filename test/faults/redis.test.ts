/**
 * Redis stopped and restarted while two instances run (Redis runs only).
 *
 * The machine's Redis is shared with the rest of the suite, so it is never stopped. Instance A
 * reaches it through a TCP proxy (test/helpers/tcp-proxy.ts) that can be cut (every connection destroyed, new
 * ones refused) and restored on the same port; instance B reaches it through a proxy that is
 * never cut (only so this file can tell B's connections apart in CLIENT LIST). Both share one
 * database.
 *
 * test/http/rate-limit.test.ts covers the rate limiter's fail-open and recovery; this file
 * covers what else depends on Redis: the API, redirects and authentication keep working on A
 * while Redis is away (never a 500), changes made on B meanwhile are honoured by A within the
 * short cache lifetime, and once Redis is back the link-cache invalidation flows again — what
 * A missed is not served stale, new changes are followed at once, and the changes A made
 * during the outage reach B.
 */
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer, onPostgres, onRedis, startTestApp, type TestApp, type WorkspaceFixture } from '../helpers/app.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { answered, sleep, within } from '../helpers/wait.js';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0';
const BOUND = 5_000;

describe.runIf(onRedis)('Redis stopped and restarted under two instances', () => {
  const real = new URL(process.env.REDIS_URL ?? 'redis://localhost');
  const target = { host: real.hostname, port: Number(real.port || 6379) };
  const proxyA = new TcpProxy(target);
  const proxyB = new TcpProxy(target);
  let observer: Redis;
  let a: TestApp;
  let b: TestApp;

  /** Whether the instance behind `proxy` holds a subscription to the three bus channels. */
  async function subscribed(proxy: TcpProxy): Promise<boolean> {
    const ports = proxy.upstreamPorts();
    const list = (await observer.client('LIST')) as string;
    return list.split('\n').some((line) => {
      const port = Number(/ addr=[^ ]*:(\d+) /.exec(` ${line}`)?.[1]);
      return ports.has(port) && Number(/ sub=(\d+)/.exec(line)?.[1] ?? 0) >= 3;
    });
  }

  /** Waits (bounded) until both instances listen to invalidations. */
  async function bothSubscribed(): Promise<void> {
    const up = await within(15_000, async () => (await subscribed(proxyA)) && (await subscribed(proxyB)), 50);
    expect(up, 'an instance did not (re)subscribe to Redis').toBe(true);
    // The subscription is confirmed to the instance a moment after Redis lists it; a test cannot
    // read the instance's own flag (the bus is not exposed), so this margin stays fixed.
    await sleep(200);
  }

  beforeAll(async () => {
    observer = new Redis(process.env.REDIS_URL!, { lazyConnect: true });
    await observer.connect();
    await proxyA.start();
    await proxyB.start();
    b = await startTestApp({ env: { REDIS_URL: proxyB.url(real) } });
    // PGlite can only be shared in process; on PostgreSQL each instance has its own pool.
    a = await startTestApp({ env: { REDIS_URL: proxyA.url(real) }, database: onPostgres ? undefined : b.database });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await proxyA.stop();
    await proxyB.stop();
    observer?.disconnect();
  });

  interface Made {
    id: string;
    path: string;
  }

  async function setup(ws: WorkspaceFixture, n: number): Promise<Made[]> {
    const col = await b.inject({ method: 'POST', url: '/api/collections', headers: bearer(ws.key), payload: [{ name: 'Redis' }] });
    expect(col.statusCode, col.body).toBe(201);
    const collectionId = col.json<{ id: string }[]>()[0]!.id;
    const items = Array.from({ length: n }, (_, i) => ({ url: `https://shop.example/l${i}/v1`, collectionId }));
    const made = await b.inject({ method: 'POST', url: '/api/links', headers: bearer(ws.key), payload: items });
    expect(made.statusCode, made.body).toBe(201);
    return made.json<{ id: string; shortUrl: string }[]>().map((l) => ({ id: l.id, path: new URL(l.shortUrl).pathname }));
  }

  const visit = (app: TestApp, link: Made) => app.inject({ method: 'GET', url: link.path, headers: { 'user-agent': UA } });

  /** Where a redirect sends the visitor (origin and path), or its status. */
  function destination(res: LightMyRequestResponse): string {
    if (res.statusCode !== 302) return `status ${res.statusCode}`;
    const url = new URL(res.headers.location as string);
    return url.origin + url.pathname;
  }

  async function servedBy(app: TestApp, link: Made): Promise<string> {
    return destination(await answered(`redirect ${link.path}`, BOUND, visit(app, link)));
  }

  async function setUrl(app: TestApp, ws: WorkspaceFixture, link: Made, url: string): Promise<void> {
    const res = await answered(
      'PUT /api/links',
      BOUND,
      app.inject({ method: 'PUT', url: '/api/links', headers: bearer(ws.key), payload: [{ id: link.id, url }] }),
    );
    expect(res.statusCode, res.body).toBe(200);
  }

  /** Polls (bounded) until `app` redirects `link` to `url`; the last destination seen otherwise. */
  async function follows(app: TestApp, link: Made, url: string, ms: number): Promise<true | string> {
    let seen = '';
    const ok = await within(ms, async () => (seen = await servedBy(app, link)) === url, 20);
    return ok ? true : `still ${seen}`;
  }

  test('while Redis is away from A: API, redirects and authentication keep working (never a 500), changes made on B are honoured within the short cache lifetime', async () => {
    await bothSubscribed();
    const ws = await b.workspace();
    const [cached, uncached, changedOnB] = await setup(ws, 3);
    const revokedLater = await ws.newKey();
    const api = (method: 'GET' | 'POST' | 'PUT', url: string, key: string, payload?: unknown) =>
      answered(`${method} ${url}`, BOUND, a.inject({ method, url, headers: bearer(key), ...(payload === undefined ? {} : { payload: payload as object }) }));

    // A has served (and cached) two links, and used both keys (cached too).
    expect(await servedBy(a, cached!)).toBe('https://shop.example/l0/v1');
    expect(await servedBy(a, changedOnB!)).toBe('https://shop.example/l2/v1');
    expect((await api('GET', '/api/tags', revokedLater.key)).statusCode).toBe(200);

    await proxyA.stop();
    try {
      // The API: reads, writes, rate-limit headers.
      const list = await api('GET', '/api/links', ws.key);
      expect(list.statusCode, list.body).toBe(200);
      expect(list.json<unknown[]>()).toHaveLength(3);
      expect(list.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
      const tag = await api('POST', '/api/tags', ws.key, [{ name: 'during-redis-outage' }]);
      expect(tag.statusCode, tag.body).toBe(201);
      const created = await api('POST', '/api/links', ws.key, [{ url: 'https://shop.example/new', collectionId: (await collectionOf(ws)).id }]);
      expect(created.statusCode, created.body).toBe(201);
      const fresh = created.json<{ id: string; shortUrl: string }[]>()[0]!;

      // Redirects: a cached link, one never served by A, one created during the outage.
      expect(await servedBy(a, cached!)).toBe('https://shop.example/l0/v1');
      expect(await servedBy(a, uncached!)).toBe('https://shop.example/l1/v1');
      expect(await servedBy(a, { id: fresh.id, path: new URL(fresh.shortUrl).pathname })).toBe('https://shop.example/new');
      expect((await a.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);

      // B changes a link A cached: with invalidations lost, A's cache holds it only briefly.
      await setUrl(b, ws, changedOnB!, 'https://shop.example/l2/v2');
      expect(await follows(a, changedOnB!, 'https://shop.example/l2/v2', 3_000)).toBe(true);

      // B revokes a key A had cached: A refuses it at once (nothing is trusted while away).
      const del = await b.admin('DELETE', `/keys/${revokedLater.id}`);
      expect(del.statusCode, del.body).toBe(200);
      const refused = await api('GET', '/api/tags', revokedLater.key);
      expect(refused.statusCode, refused.body).toBe(401);
      expect(refused.json<{ error: { code: string } }>().error.code).toBe('credential_revoked');

      // A changes a link itself: it answers 200 although it cannot announce the change.
      await setUrl(a, ws, cached!, 'https://shop.example/l0/v2');
      expect(await servedBy(a, cached!)).toBe('https://shop.example/l0/v2');
    } finally {
      await proxyA.start();
    }
    // Back: A serves as before.
    await bothSubscribed();
    expect((await api('GET', '/api/links', ws.key)).statusCode).toBe(200);
  });

  async function collectionOf(ws: WorkspaceFixture): Promise<{ id: string }> {
    const res = await b.inject({ method: 'GET', url: '/api/collections', headers: bearer(ws.key) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ id: string }[]>()[0]!;
  }

  test("after Redis is back, link-cache invalidation resumes both ways: what A missed is not served stale, new changes are followed, A's outage changes reach B", async () => {
    await bothSubscribed();
    const ws = await b.workspace();
    const [missedByA, followedByA, changedByA, keyLink] = await setup(ws, 4);

    // Both instances serve (and cache, for long: invalidations flow) the links.
    for (const link of [missedByA!, followedByA!, changedByA!, keyLink!]) {
      const path = link.path;
      expect(await servedBy(a, link), path).toMatch(/\/v1$/);
      expect(await servedBy(b, link), path).toMatch(/\/v1$/);
    }
    const usedOnA = await ws.newKey();
    expect((await a.inject({ method: 'GET', url: '/api/tags', headers: bearer(usedOnA.key) })).statusCode).toBe(200);

    await proxyA.stop();
    try {
      // During the outage: B changes a link A cached (A is not told, and is not asked for it);
      // A changes a link B cached (A cannot tell B).
      await setUrl(b, ws, missedByA!, 'https://shop.example/l0/v2');
      await setUrl(a, ws, changedByA!, 'https://shop.example/l2/v2');
    } finally {
      await proxyA.start();
    }
    await bothSubscribed();

    // A dropped what it might have missed: the change B made meanwhile is served.
    expect(await follows(a, missedByA!, 'https://shop.example/l0/v2', 2_000)).toBe(true);

    // New changes through B reach A's cache again: load it now, change it, follow it at once.
    expect(await servedBy(a, followedByA!)).toBe('https://shop.example/l1/v1');
    await setUrl(b, ws, followedByA!, 'https://shop.example/l1/v2');
    expect(await follows(a, followedByA!, 'https://shop.example/l1/v2', 1_000)).toBe(true);
    // And the other way round, through A's restored publisher.
    expect(await servedBy(b, keyLink!)).toBe('https://shop.example/l3/v1');
    await setUrl(a, ws, keyLink!, 'https://shop.example/l3/v2');
    expect(await follows(b, keyLink!, 'https://shop.example/l3/v2', 1_000)).toBe(true);

    // A revocation on B reaches A's key cache again.
    expect((await a.inject({ method: 'GET', url: '/api/tags', headers: bearer(usedOnA.key) })).statusCode).toBe(200);
    expect((await b.admin('DELETE', `/keys/${usedOnA.id}`)).statusCode).toBe(200);
    let last = 0;
    const refused = await within(
      1_000,
      async () => (last = (await a.inject({ method: 'GET', url: '/api/tags', headers: bearer(usedOnA.key) })).statusCode) === 401,
      20,
    );
    expect(refused, `A still answers ${last} for a revoked key`).toBe(true);

    // The change A made while it could not announce it reaches B once Redis is back (B cached
    // the link while connected throughout, so only an announcement can tell it).
    expect(await follows(b, changedByA!, 'https://shop.example/l2/v2', 3_000)).toBe(true);
  });
});
