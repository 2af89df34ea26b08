/**
 * The redirect's link cache (src/modules/redirect/link-cache.ts).
 *
 * 1. With Redis (REDIS_URL set): two instances behave as one service (operations.md §1). An
 *    instance that has served (and so cached) a link honours an update or a delete made
 *    through the other instance within one second.
 * 2. Unit tests of LinkCache itself, with the in-process LocalBus or a small bus object whose
 *    connection state the test sets (no Redis needed).
 */
import { Redis } from 'ioredis';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBus, type InvalidationBus } from '../../../src/infra/bus.js';
import { LinkCache } from '../../../src/modules/redirect/link-cache.js';
import type { RedirectLink } from '../../../src/modules/redirect/resolve.js';
import { bearer, onPostgres, onRedis, startTestApp, type TestApp } from '../../helpers/app.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds or `ms` have passed (bounded); whether it held. */
async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(20);
  }
}

describe.runIf(onRedis)('two instances sharing Redis', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await startTestApp();
    // The invalidation channel of src/modules/redirect/link-cache.ts: wait (bounded) until B
    // has subscribed, so the tests start from a connected bus.
    const redis = new Redis(process.env.REDIS_URL!, { lazyConnect: true });
    await redis.connect();
    const subscribers = async () => Number(((await redis.pubsub('NUMSUB', 'lt:links:changed')) as [string, number])[1]);
    const before = await subscribers();
    // PGlite can only be shared in process; on PostgreSQL the second instance opens its own pool.
    b = await startTestApp(onPostgres ? {} : { database: a.database });
    await within(5_000, async () => (await subscribers()) > before);
    redis.disconnect();
  });

  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  async function linkOnA() {
    const ws = await a.workspace({ rateLimitPerMinute: 1_000_000 });
    const send = (method: 'POST' | 'PUT' | 'DELETE', url: string, body: unknown) =>
      a.inject({ method, url, headers: { ...bearer(ws.key), 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    const col = await send('POST', '/api/collections', [{ name: 'Shared' }]);
    expect(col.statusCode, col.body).toBe(201);
    const created = await send('POST', '/api/links', [{ url: 'https://shop.example/v1', collectionId: col.json<{ id: string }[]>()[0]!.id }]);
    expect(created.statusCode, created.body).toBe(201);
    const link = created.json<{ id: string; shortUrl: string }[]>()[0]!;
    return { ...link, path: new URL(link.shortUrl).pathname, send };
  }

  const visitB = (path: string) => b.inject({ method: 'GET', url: path, headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0' } });
  const target = (res: LightMyRequestResponse) => {
    if (res.statusCode !== 302) return `status ${res.statusCode}`;
    const url = new URL(res.headers.location as string);
    return url.origin + url.pathname;
  };

  it('B serves a link (and caches it); A changes its url; B follows within one second', async () => {
    const link = await linkOnA();
    expect(target(await visitB(link.path))).toBe('https://shop.example/v1');
    expect(target(await visitB(link.path))).toBe('https://shop.example/v1');

    const put = await link.send('PUT', '/api/links', [{ id: link.id, url: 'https://shop.example/v2' }]);
    expect(put.statusCode, put.body).toBe(200);
    let seen = '';
    const followed = await within(1_000, async () => (seen = target(await visitB(link.path))) === 'https://shop.example/v2');
    expect(followed, `B still answers ${seen}`).toBe(true);
  });

  it('B serves a link (and caches it); A deletes it; B answers 404 within one second', async () => {
    const link = await linkOnA();
    expect(target(await visitB(link.path))).toBe('https://shop.example/v1');

    const del = await link.send('DELETE', '/api/links', [link.id]);
    expect(del.statusCode, del.body).toBe(200);
    let status = 0;
    const gone = await within(1_000, async () => (status = (await visitB(link.path)).statusCode) === 404);
    expect(gone, `B still answers ${status}`).toBe(true);
  });

  it('B serves a link; A adds a password; B asks for it within one second', async () => {
    const link = await linkOnA();
    expect(target(await visitB(link.path))).toBe('https://shop.example/v1');

    const put = await link.send('PUT', '/api/links', [{ id: link.id, password: 'locked-now' }]);
    expect(put.statusCode, put.body).toBe(200);
    let status = 0;
    const locked = await within(1_000, async () => (status = (await visitB(link.path)).statusCode) === 401);
    expect(locked, `B still answers ${status}`).toBe(true);
  });
});

describe('LinkCache (unit)', () => {
  const OPTIONS = { ttlMs: 60_000, shortTtlMs: 1_000, maxHits: 100, maxMisses: 100 };

  function redirectLink(shortId: string, url: string, id = `id-${shortId}`): RedirectLink {
    return {
      id,
      workspaceId: 'ws',
      shortId,
      url,
      utm: null,
      expiresAt: null,
      expiredUrl: null,
      passwordSealed: null,
      cloaked: false,
      ios: null,
      android: null,
      geo: null,
      partnerId: null,
      title: null,
      description: null,
      image: null,
    };
  }

  /** A table of links by short id standing in for the database, counting loads. */
  function store() {
    const table = new Map<string, RedirectLink>();
    const loads: string[] = [];
    const load = async (shortId: string) => {
      loads.push(shortId);
      return table.get(shortId) ?? null;
    };
    return { table, loads, load };
  }

  /** A bus whose connection the test sets; it records what is published and delivers it locally. */
  class SwitchBus implements InvalidationBus {
    up = true;
    published: string[][] = [];
    private readonly listeners: ((ids: string[]) => void)[] = [];
    async publish(ids: string[]) {
      this.published.push(ids);
      for (const l of this.listeners) l(ids);
    }
    subscribe(listener: (ids: string[]) => void) {
      this.listeners.push(listener);
    }
    connected() {
      return this.up;
    }
    async close() {}
  }

  /** Loads `shortId` through the cache; the real-time bracket of the moment it was stored. */
  async function prime(cache: LinkCache, shortId: string) {
    const before = Date.now();
    const value = await cache.get(shortId, before);
    const after = Date.now();
    return { value, before, after };
  }

  it('a hit is answered from memory, without a promise and without loading again', async () => {
    const db = store();
    db.table.set('Abcd1234', redirectLink('Abcd1234', 'https://a.example/'));
    const cache = new LinkCache(db.load, new LocalBus(), OPTIONS);
    const { value, after } = await prime(cache, 'Abcd1234');
    expect(value).toMatchObject({ url: 'https://a.example/' });
    const hit = cache.get('Abcd1234', after + 10);
    expect(hit).not.toBeInstanceOf(Promise);
    expect(hit).toBe(value);
    expect(db.loads).toEqual(['Abcd1234']);
  });

  it('concurrent misses share one load', async () => {
    const db = store();
    db.table.set('Abcd1234', redirectLink('Abcd1234', 'https://a.example/'));
    const cache = new LinkCache(db.load, new LocalBus(), OPTIONS);
    const [x, y] = await Promise.all([cache.get('Abcd1234'), cache.get('Abcd1234')]);
    expect(x).toBe(y);
    expect(db.loads).toEqual(['Abcd1234']);
  });

  it('an invalidation by link id drops the entry (in every cache on the bus); other ids do nothing', async () => {
    const db = store();
    db.table.set('Abcd1234', redirectLink('Abcd1234', 'https://a.example/v1', 'link-1'));
    db.table.set('Efgh5678', redirectLink('Efgh5678', 'https://b.example/', 'link-2'));
    const bus = new LocalBus();
    const mine = new LinkCache(db.load, bus, OPTIONS);
    const other = new LinkCache(db.load, bus, OPTIONS);
    for (const c of [mine, other]) {
      await c.get('Abcd1234');
      await c.get('Efgh5678');
    }
    expect(db.loads).toHaveLength(4);

    db.table.set('Abcd1234', redirectLink('Abcd1234', 'https://a.example/v2', 'link-1'));
    await mine.changed(['link-1']);
    for (const c of [mine, other]) {
      expect(await c.get('Abcd1234')).toMatchObject({ url: 'https://a.example/v2' });
      expect(c.get('Efgh5678')).toMatchObject({ url: 'https://b.example/' }); // still a hit
    }
    expect(db.loads).toEqual(['Abcd1234', 'Efgh5678', 'Abcd1234', 'Efgh5678', 'Abcd1234', 'Abcd1234']);

    await mine.changed(['link-unknown']);
    await mine.changed([]);
    expect(mine.get('Abcd1234')).not.toBeInstanceOf(Promise);
    expect(db.loads).toHaveLength(6);
  });

  it('changed() publishes through the bus, and nothing for an empty list', async () => {
    const bus = new SwitchBus();
    const cache = new LinkCache(store().load, bus, OPTIONS);
    await cache.changed([]);
    await cache.changed(['link-1', 'link-2']);
    expect(bus.published).toEqual([['link-1', 'link-2']]);
  });

  it('"no such link" is remembered for shortTtlMs only', async () => {
    const db = store();
    const cache = new LinkCache(db.load, new LocalBus(), OPTIONS);
    const { value, before, after } = await prime(cache, 'Nope0000');
    expect(value).toBeNull();
    expect(cache.get('Nope0000', before + OPTIONS.shortTtlMs - 1)).toBeNull();
    expect(db.loads).toHaveLength(1);

    db.table.set('Nope0000', redirectLink('Nope0000', 'https://late.example/'));
    const reloaded = cache.get('Nope0000', after + OPTIONS.shortTtlMs);
    expect(reloaded).toBeInstanceOf(Promise);
    expect(await reloaded).toMatchObject({ url: 'https://late.example/' });
    expect(db.loads).toHaveLength(2);
  });

  it('while the bus is connected a link is trusted for ttlMs, then reloaded', async () => {
    const db = store();
    db.table.set('Abcd1234', redirectLink('Abcd1234', 'https://a.example/'));
    const cache = new LinkCache(db.load, new SwitchBus(), OPTIONS);
    const { before, after } = await prime(cache, 'Abcd1234');
    expect(cache.get('Abcd1234', before + OPTIONS.shortTtlMs * 5)).not.toBeInstanceOf(Promise);
    expect(cache.get('Abcd1234', before + OPTIONS.ttlMs - 1)).not.toBeInstanceOf(Promise);
    expect(db.loads).toHaveLength(1);
    await cache.get('Abcd1234', after + OPTIONS.ttlMs);
    expect(db.loads).toHaveLength(2);
  });

  it('while the bus is disconnected, entries older than shortTtlMs are reloaded', async () => {
    const db = store();
    db.table.set('Abcd1234', redirectLink('Abcd1234', 'https://a.example/v1'));
    const bus = new SwitchBus();
    const cache = new LinkCache(db.load, bus, OPTIONS);
    const { before, after } = await prime(cache, 'Abcd1234');

    bus.up = false;
    // Young enough: still served from memory.
    expect(cache.get('Abcd1234', before + OPTIONS.shortTtlMs - 1)).toMatchObject({ url: 'https://a.example/v1' });
    expect(db.loads).toHaveLength(1);
    // A change elsewhere that this instance could not hear about.
    db.table.set('Abcd1234', redirectLink('Abcd1234', 'https://a.example/v2'));
    const reloaded = cache.get('Abcd1234', after + OPTIONS.shortTtlMs);
    expect(reloaded).toBeInstanceOf(Promise);
    expect(await reloaded).toMatchObject({ url: 'https://a.example/v2' });
    expect(db.loads).toHaveLength(2);
  });

  it('an entry loaded while the bus was disconnected is not trusted for ttlMs once it reconnects', async () => {
    // Invalidations published between the load and the reconnection were never heard.
    const db = store();
    db.table.set('Abcd1234', redirectLink('Abcd1234', 'https://a.example/v1'));
    const bus = new SwitchBus();
    bus.up = false;
    const cache = new LinkCache(db.load, bus, OPTIONS);
    const { after } = await prime(cache, 'Abcd1234');
    db.table.set('Abcd1234', redirectLink('Abcd1234', 'https://a.example/v2')); // missed
    bus.up = true;
    const later = cache.get('Abcd1234', after + OPTIONS.shortTtlMs);
    expect(await later).toMatchObject({ url: 'https://a.example/v2' });
  });

  it('an invalidation that arrives while the link is being loaded is not lost', async () => {
    // The load read the old row; the change committed and was announced before the load returned.
    const bus = new LocalBus();
    let release: (link: RedirectLink) => void = () => undefined;
    const loads: string[] = [];
    let current = redirectLink('Abcd1234', 'https://a.example/v1', 'link-1');
    const cache = new LinkCache(
      (shortId) => {
        loads.push(shortId);
        if (loads.length === 1) return new Promise<RedirectLink>((resolve) => (release = resolve));
        return Promise.resolve(current);
      },
      bus,
      OPTIONS,
    );
    const inFlight = cache.get('Abcd1234');
    const stale = current;
    current = redirectLink('Abcd1234', 'https://a.example/v2', 'link-1');
    await cache.changed(['link-1']);
    release(stale);
    expect(await inFlight).toMatchObject({ url: 'https://a.example/v1' }); // that request saw the old row: fine
    expect(await cache.get('Abcd1234')).toMatchObject({ url: 'https://a.example/v2' });
  });

  it('a failed load is not cached: the next request loads again', async () => {
    let fail = true;
    const loads: string[] = [];
    const cache = new LinkCache(
      async (shortId) => {
        loads.push(shortId);
        if (fail) throw new Error('database away');
        return redirectLink(shortId, 'https://a.example/');
      },
      new LocalBus(),
      OPTIONS,
    );
    await expect(cache.get('Abcd1234')).rejects.toThrow('database away');
    fail = false;
    expect(await cache.get('Abcd1234')).toMatchObject({ url: 'https://a.example/' });
    expect(loads).toEqual(['Abcd1234', 'Abcd1234']);
  });

  it('holds at most maxHits links: the least recently loaded goes first', async () => {
    const db = store();
    for (const id of ['Aaaa0001', 'Bbbb0002', 'Cccc0003']) db.table.set(id, redirectLink(id, `https://${id}.example/`));
    const cache = new LinkCache(db.load, new LocalBus(), { ...OPTIONS, maxHits: 2 });
    await cache.get('Aaaa0001');
    await cache.get('Bbbb0002');
    await cache.get('Cccc0003');
    expect(cache.get('Bbbb0002')).not.toBeInstanceOf(Promise);
    expect(cache.get('Cccc0003')).not.toBeInstanceOf(Promise);
    expect(cache.get('Aaaa0001')).toBeInstanceOf(Promise);
  });

  it('a scan of unknown short ids fills only the misses: the links found stay cached', async () => {
    const db = store();
    db.table.set('Aaaa0001', redirectLink('Aaaa0001', 'https://a.example/'));
    const cache = new LinkCache(db.load, new LocalBus(), { ...OPTIONS, maxHits: 2, maxMisses: 5 });
    await cache.get('Aaaa0001');
    for (let i = 0; i < 100; i++) await cache.get(`Scan${String(i).padStart(4, '0')}`);
    expect(cache.get('Aaaa0001')).not.toBeInstanceOf(Promise);
    expect(cache.get('Scan0099')).toBeNull();
    expect(cache.get('Scan0000')).toBeInstanceOf(Promise); // bounded: the oldest misses went
  });
});
