import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MemoryRateLimiter, WINDOW_MS } from '../../src/http/rate-limit.js';
import { bearer, onPostgres, onRedis, startTestApp, type TestApp } from '../helpers/app.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

// ---------------------------------------------------------------------------------------------
// MemoryRateLimiter, pure
// ---------------------------------------------------------------------------------------------

describe('MemoryRateLimiter (sliding window log)', () => {
  // A whole second, so X-RateLimit-Reset arithmetic is easy to read.
  const T0 = Date.UTC(2031, 0, 1, 0, 0, 0);
  const s = (seconds: number) => T0 + seconds * 1000;
  let limiter: MemoryRateLimiter;

  beforeAll(() => {
    limiter = new MemoryRateLimiter();
  });
  afterAll(async () => {
    await limiter.close();
  });

  test('the window slides: a request counts for exactly 60 s after it was made, not until a fixed boundary', async () => {
    const key = 'sliding';
    const a = await limiter.hit(key, 3, s(0));
    expect(a).toEqual({ allowed: true, limit: 3, remaining: 2, resetAt: T0 / 1000 + 60, retryAfter: 0 });
    const b = await limiter.hit(key, 3, s(30));
    expect(b).toEqual({ allowed: true, limit: 3, remaining: 1, resetAt: T0 / 1000 + 60, retryAfter: 0 });
    const c = await limiter.hit(key, 3, s(30));
    expect(c).toEqual({ allowed: true, limit: 3, remaining: 0, resetAt: T0 / 1000 + 60, retryAfter: 0 });

    // Full: the oldest (t=0) frees its slot at t=60.
    const d = await limiter.hit(key, 3, s(45));
    expect(d).toEqual({ allowed: false, limit: 3, remaining: 0, resetAt: T0 / 1000 + 60, retryAfter: 15 });

    // Just after t=60 the first request has left the window: one slot, taken at once.
    const e = await limiter.hit(key, 3, s(60.001));
    expect(e.allowed).toBe(true);
    expect(e.remaining).toBe(0);
    // Oldest counted request is now one of the two made at t=30.
    expect(e.resetAt).toBe(T0 / 1000 + 90);

    // A fixed minute window would have reset at t=60 and allowed 3 fresh requests; a sliding
    // one still holds the two t=30 requests and the t=60.001 one.
    const f = await limiter.hit(key, 3, s(61));
    expect(f).toEqual({ allowed: false, limit: 3, remaining: 0, resetAt: T0 / 1000 + 90, retryAfter: 29 });

    // At t=90 both t=30 requests leave together: two slots.
    const g = await limiter.hit(key, 3, s(90));
    expect(g.allowed).toBe(true);
    expect(g.remaining).toBe(1);
    expect(g.resetAt).toBe(Math.ceil((s(60.001) + WINDOW_MS) / 1000));
  });

  test('rejected requests are not counted', async () => {
    const key = 'rejections';
    expect((await limiter.hit(key, 2, s(0))).allowed).toBe(true);
    expect((await limiter.hit(key, 2, s(1))).allowed).toBe(true);
    // A client hammering while limited must not push its own recovery further away.
    for (let t = 2; t < 60; t += 0.5) expect((await limiter.hit(key, 2, s(t))).allowed).toBe(false);
    const afterFirst = await limiter.hit(key, 2, s(60.5));
    expect(afterFirst.allowed).toBe(true);
    expect(afterFirst.remaining).toBe(0);
    const afterSecond = await limiter.hit(key, 2, s(61.5));
    expect(afterSecond.allowed).toBe(true);
    expect(afterSecond.remaining).toBe(0);
  });

  test('retryAfter is a whole number of seconds, at least 1, rounded up', async () => {
    const key = 'rounding';
    await limiter.hit(key, 1, s(0));
    const midway = await limiter.hit(key, 1, s(20.2));
    expect(midway.allowed).toBe(false);
    expect(midway.retryAfter).toBe(40); // 39.8 s rounded up
    const nearlyFree = await limiter.hit(key, 1, s(59.9));
    expect(nearlyFree.allowed).toBe(false);
    expect(nearlyFree.retryAfter).toBe(1);
  });

  test('resetAt is rounded up to whole Unix seconds', async () => {
    const key = 'reset-rounding';
    const d = await limiter.hit(key, 5, T0 + 400);
    expect(d.resetAt).toBe(T0 / 1000 + 61);
    expect(d.remaining).toBe(4);
  });

  test('keys are independent windows', async () => {
    await limiter.hit('k1', 1, s(0));
    expect((await limiter.hit('k1', 1, s(1))).allowed).toBe(false);
    const other = await limiter.hit('k2', 1, s(1));
    expect(other.allowed).toBe(true);
    expect(other.remaining).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------
// Through HTTP
// ---------------------------------------------------------------------------------------------

// A controllable clock shared by every instance of this file. It only ever moves forward, so
// tests (each on fresh workspaces) never disturb one another.
let nowMs = Date.UTC(2031, 5, 1, 12, 0, 0);
const clock = () => new Date(nowMs);
const advance = (ms: number) => {
  nowMs += ms;
};

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ clock });
});
afterAll(async () => {
  await app?.close();
});

interface ErrorBody {
  error: { en: string; ar: string; code: string };
  retryAfter?: number;
}

function rateHeaders(res: LightMyRequestResponse) {
  return {
    limit: res.headers['x-ratelimit-limit'],
    remaining: res.headers['x-ratelimit-remaining'],
    reset: res.headers['x-ratelimit-reset'],
  };
}

function expectRateHeaders(res: LightMyRequestResponse, limit: number, remaining: number, reset: number) {
  expect(rateHeaders(res)).toEqual({ limit: String(limit), remaining: String(remaining), reset: String(reset) });
}

function expectRateLimited(res: LightMyRequestResponse, retryAfter?: number) {
  expect(res.statusCode).toBe(429);
  const body = res.json<ErrorBody>();
  expect(body.error.code).toBe('rate_limited');
  expect(typeof body.error.en).toBe('string');
  expect(body.error.en.length).toBeGreaterThan(0);
  expect(typeof body.error.ar).toBe('string');
  expect(body.error.ar.length).toBeGreaterThan(0);
  expect(Number.isInteger(body.retryAfter)).toBe(true);
  expect(body.retryAfter).toBeGreaterThanOrEqual(1);
  if (retryAfter !== undefined) expect(body.retryAfter).toBe(retryAfter);
  expect(res.headers['retry-after']).toBe(String(body.retryAfter));
  return body.retryAfter!;
}

const listTags = (inst: TestApp, key: string) => inst.inject({ method: 'GET', url: '/api/tags', headers: bearer(key) });

describe('rate limit through HTTP', () => {
  test('X-RateLimit headers on 200, 201, 400, 403 and 429 answers; 400 and 403 count', async () => {
    const ws = await app.workspace({ rateLimitPerMinute: 5 });
    const readOnly = await ws.newKey(['tagsRead']);
    const start = nowMs;
    const reset = Math.ceil((start + WINDOW_MS) / 1000);

    const ok = await listTags(app, ws.key);
    expect(ok.statusCode).toBe(200);
    expectRateHeaders(ok, 5, 4, reset);

    advance(1000);
    const created = await app.inject({ method: 'POST', url: '/api/tags', headers: bearer(ws.key), payload: [{ name: 'kept' }] });
    expect(created.statusCode).toBe(201);
    expectRateHeaders(created, 5, 3, reset);

    advance(1000);
    const badBody = await app.inject({ method: 'POST', url: '/api/tags', headers: bearer(ws.key), payload: [{ color: 'red' }] });
    expect(badBody.statusCode).toBe(400);
    expectRateHeaders(badBody, 5, 2, reset);

    advance(1000);
    const forbidden = await app.inject({ method: 'POST', url: '/api/tags', headers: bearer(readOnly.key), payload: [{ name: 'nope' }] });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json<ErrorBody>().error.code).toBe('missing_scopes');
    expectRateHeaders(forbidden, 5, 1, reset);

    const malformed = await app.inject({
      method: 'POST',
      url: '/api/tags',
      headers: { ...bearer(ws.key), 'content-type': 'application/json' },
      payload: '[{"name":',
    });
    expect(malformed.statusCode).toBe(400);
    expectRateHeaders(malformed, 5, 0, reset);

    const limited = await listTags(app, ws.key);
    expectRateLimited(limited, Math.ceil((start + WINDOW_MS - nowMs) / 1000));
    expectRateHeaders(limited, 5, 0, reset);

    // Once the window has passed: exactly the one valid tag was written.
    advance(WINDOW_MS);
    const after = await listTags(app, ws.key);
    expect(after.statusCode).toBe(200);
    expect(after.json<{ name: string }[]>().map((t) => t.name)).toEqual(['kept']);
  });

  test('429 body: rate_limited in en and ar, integer retryAfter equal to the Retry-After header', async () => {
    const ws = await app.workspace({ rateLimitPerMinute: 3 });
    const start = nowMs;
    for (let i = 0; i < 3; i++) expect((await listTags(app, ws.key)).statusCode).toBe(200);
    advance(20_000);
    const limited = await listTags(app, ws.key);
    expectRateLimited(limited, 40);
    expectRateHeaders(limited, 3, 0, Math.ceil((start + WINDOW_MS) / 1000));
    // Still limited with any method or route of the workspace.
    const post = await app.inject({ method: 'POST', url: '/api/tags', headers: bearer(ws.key), payload: [{ name: 'x' }] });
    expectRateLimited(post, 40);
  });

  test('all keys of one workspace share one pool, whichever header carries them', async () => {
    const ws = await app.workspace({ rateLimitPerMinute: 3 });
    const second = await ws.newKey(['tagsRead']);
    const third = await ws.newKey(['tagsRead', 'tagsWrite']);

    const r1 = await listTags(app, ws.key);
    expect(r1.statusCode).toBe(200);
    expect(rateHeaders(r1).remaining).toBe('2');
    const r2 = await app.inject({ method: 'GET', url: '/api/tags', headers: { 'x-api-key': second.key } });
    expect(r2.statusCode).toBe(200);
    expect(rateHeaders(r2).remaining).toBe('1');
    const r3 = await app.inject({ method: 'GET', url: '/api/tags', headers: { authorization: third.key } });
    expect(r3.statusCode).toBe(200);
    expect(rateHeaders(r3).remaining).toBe('0');

    for (const key of [ws.key, second.key, third.key]) expectRateLimited(await listTags(app, key));
  });

  test('another workspace is unaffected', async () => {
    const busy = await app.workspace({ rateLimitPerMinute: 3 });
    const quiet = await app.workspace({ rateLimitPerMinute: 3 });
    for (let i = 0; i < 3; i++) expect((await listTags(app, busy.key)).statusCode).toBe(200);
    expectRateLimited(await listTags(app, busy.key));

    const res = await listTags(app, quiet.key);
    expect(res.statusCode).toBe(200);
    expectRateHeaders(res, 3, 2, Math.ceil((nowMs + WINDOW_MS) / 1000));
  });

  test('the limit is the workspace plan value unless overridden', async () => {
    const free = await app.workspace({ plan: 'free' });
    const res = await listTags(app, free.key);
    expect(res.statusCode).toBe(200);
    expectRateHeaders(res, 60, 59, Math.ceil((nowMs + WINDOW_MS) / 1000));
  });

  test('the window slides with the clock', async () => {
    const ws = await app.workspace({ rateLimitPerMinute: 3 });
    const t0 = nowMs;
    expect((await listTags(app, ws.key)).statusCode).toBe(200); // t=0
    advance(30_000);
    expect((await listTags(app, ws.key)).statusCode).toBe(200); // t=30
    expect((await listTags(app, ws.key)).statusCode).toBe(200); // t=30
    advance(15_000);
    const at45 = await listTags(app, ws.key);
    expectRateLimited(at45, 15);
    expectRateHeaders(at45, 3, 0, Math.ceil((t0 + WINDOW_MS) / 1000));

    advance(15_001); // t=60.001: the t=0 request has left the window
    const at60 = await listTags(app, ws.key);
    expect(at60.statusCode).toBe(200);
    expectRateHeaders(at60, 3, 0, Math.ceil((t0 + 30_000 + WINDOW_MS) / 1000));

    advance(999); // t=61: a fixed window would have allowed three fresh requests
    expectRateLimited(await listTags(app, ws.key), 29);

    advance(29_000); // t=90: both t=30 requests leave together
    const at90a = await listTags(app, ws.key);
    expect(at90a.statusCode).toBe(200);
    expect(rateHeaders(at90a).remaining).toBe('1');
    const at90b = await listTags(app, ws.key);
    expect(at90b.statusCode).toBe(200);
    expect(rateHeaders(at90b).remaining).toBe('0');
    expectRateLimited(await listTags(app, ws.key));
  });
});

// ---------------------------------------------------------------------------------------------
// Several instances on one Redis
// ---------------------------------------------------------------------------------------------

/** Another instance on the same database and clock (PGlite can only be shared in process). */
function anotherInstance(env?: Record<string, string>): Promise<TestApp> {
  return startTestApp({ clock, env, database: onPostgres ? undefined : app.database });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whether requests made through `a` are counted by `b`: a fresh workspace with limit 3, three
 * requests through `a` (each must succeed), then one through `b`. Retried until `deadlineMs`
 * because a freshly started or reconnecting instance limits in process until Redis answers.
 */
async function sharesLimit(a: TestApp, b: TestApp, deadlineMs: number): Promise<boolean> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const ws = await app.workspace({ rateLimitPerMinute: 3 });
    for (let i = 0; i < 3; i++) {
      const res = await listTags(a, ws.key);
      expect(res.statusCode).toBe(200);
      expect(rateHeaders(res).limit).toBe('3');
    }
    const fromB = await listTags(b, ws.key);
    expect([200, 429]).toContain(fromB.statusCode);
    if (fromB.statusCode === 429) return true;
    if (Date.now() > deadline) return false;
    await sleep(200);
  }
}

describe.runIf(onRedis)('several instances on one Redis', () => {
  test('two instances share one limit', async () => {
    const b = await anotherInstance();
    try {
      // Waits (bounded) until the new instance's Redis connection is up.
      expect(await sharesLimit(app, b, 10_000)).toBe(true);

      const ws = await app.workspace({ rateLimitPerMinute: 3 });
      for (let i = 0; i < 3; i++) expect((await listTags(app, ws.key)).statusCode).toBe(200);
      const fromB = await listTags(b, ws.key);
      expectRateLimited(fromB);
      expectRateHeaders(fromB, 3, 0, Math.ceil((nowMs + WINDOW_MS) / 1000));

      // And the other way round, interleaved.
      const ws2 = await app.workspace({ rateLimitPerMinute: 3 });
      expect(rateHeaders(await listTags(b, ws2.key)).remaining).toBe('2');
      expect(rateHeaders(await listTags(app, ws2.key)).remaining).toBe('1');
      expect(rateHeaders(await listTags(b, ws2.key)).remaining).toBe('0');
      expectRateLimited(await listTags(app, ws2.key));
      expectRateLimited(await listTags(b, ws2.key));

      // The shared window slides too.
      advance(WINDOW_MS);
      expect((await listTags(b, ws2.key)).statusCode).toBe(200);
    } finally {
      await b.close();
    }
  });

  test('Redis outage: requests are served (fail open) and the shared limit returns with Redis', async () => {
    const real = new URL(process.env.REDIS_URL!);
    const proxy = TcpProxy.to(real, 6379);
    await proxy.start();
    let a: TestApp | undefined;
    try {
      a = await anotherInstance({ REDIS_URL: proxy.url(real) });

      // Through the proxy, instance A shares the limit with the main instance.
      expect(await sharesLimit(a, app, 10_000)).toBe(true);

      // Cut Redis off from A.
      await proxy.stop();
      const ws = await app.workspace({ rateLimitPerMinute: 3 });
      for (let i = 0; i < 3; i++) {
        const res = await listTags(a, ws.key);
        expect(res.statusCode).toBe(200);
        expect(rateHeaders(res).limit).toBe('3');
        expect(rateHeaders(res).remaining).toMatch(/^\d+$/);
        expect(rateHeaders(res).reset).toMatch(/^\d+$/);
      }
      const write = await a.inject({ method: 'POST', url: '/api/tags', headers: bearer(ws.key), payload: [{ name: 'during-outage' }] });
      expect(write.statusCode).not.toBe(500);
      expect(write.headers['x-ratelimit-limit']).toBe('3');
      // Those requests never reached Redis: the main instance has not seen them.
      const fromMain = await listTags(app, ws.key);
      expect(fromMain.statusCode).toBe(200);
      expect(rateHeaders(fromMain).remaining).toBe('2');

      // Redis back on the same address: A reconnects and the shared window applies again.
      await proxy.start();
      expect(await sharesLimit(a, app, 10_000)).toBe(true);
    } finally {
      await a?.close();
      await proxy.stop();
    }
  });
});
