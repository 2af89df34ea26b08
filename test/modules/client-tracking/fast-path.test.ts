/**
 * POST /api/track/click before the framework (client-tracking/fast-path.ts): over a real socket
 * a site's click whose key is cached is answered without Fastify (no X-Request-Id, as the
 * redirect's fast path). Every answer must be the route's: the tests send the same requests to
 * the route (`inject` never reaches the fast path) and compare, for chosen cases and for random
 * bodies; the windows are the route's too.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { DESKTOP, IPHONE, UUID } from '../../helpers/visitors.js';
import { SITE, standingClock, trackedSite, type Site } from './helpers.js';

let t: TestApp;
let port: number;
let s: Site;
let shortId: string;
let linkId: string;
let ada: { id: string; referralKey: string; defaultLinkId: string };
const time = standingClock();

beforeAll(async () => {
  t = await startTestApp({ env: { TRUST_PROXY: 'true' }, clock: time.clock });
  await t.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.runtime.app.server.address() as AddressInfo).port;
});
afterAll(() => t?.close());
afterEach(() => time.thaw());

let ready: Promise<void> | undefined;
/** The site, its partner and a link, made once (partner() polls, which only a test may). */
/**
 * The route loads the key into the instance's cache (10 s); the socket's requests after it skip
 * the framework. Loaded again before each request that must take the fast path: a test can start
 * more than 10 s after the last load, and on PostgreSQL + Redis another file's credential change
 * (the shared credential epoch) empties the cache at any moment.
 */
const warmKey = () => throughRoute(JSON.stringify({ shortId }), { ip: freshIp() });

/** A request over the socket answered by the fast path (no X-Request-Id): the key loaded first, and again when the cache was emptied in between (at most five tries). */
async function overFastPath(body: string, o: { ip: string; ua?: string }): Promise<Answer> {
  for (let attempt = 1; ; attempt++) {
    await warmKey();
    const answer = await overSocket(body, o);
    if (answer.headers['x-request-id'] === undefined || attempt === 5) return answer;
  }
}

async function site(): Promise<void> {
  ready ??= (async () => {
    s = await trackedSite(t);
    ada = await s.partner('Ada Partner', { couponCodes: ['ADA10'] });
    const [link] = await s.ok('POST', '/api/links', [{ url: `${SITE}/x`, collectionId: s.collectionId }], 201);
    shortId = new URL(link.shortUrl).pathname.slice(1);
    linkId = link.id;
  })();
  await ready;
  await warmKey();
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let nextAddress = 0;
/** A visitor address no other request of this file uses (each has its own window). */
const freshIp = () => `10.77.${Math.floor(++nextAddress / 250) % 250}.${nextAddress % 250}`;

/** A page's click over the socket; `ip` travels as X-Forwarded-For (TRUST_PROXY). */
function overSocket(body: string, o: { ip: string; ua?: string; key?: string; origin?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/track/click',
        headers: {
          authorization: `Bearer ${o.key ?? s.key}`,
          origin: o.origin ?? SITE,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': o.ua ?? DESKTOP,
          'x-forwarded-for': o.ip,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The same request through the route. */
async function throughRoute(body: string, o: { ip: string; ua?: string }): Promise<Answer> {
  const res = await t.inject({
    method: 'POST',
    url: '/api/track/click',
    headers: { authorization: `Bearer ${s.key}`, origin: SITE, 'content-type': 'application/json', 'user-agent': o.ua ?? DESKTOP, 'x-forwarded-for': o.ip },
    payload: body,
  });
  return { status: res.statusCode, headers: res.headers as Answer['headers'], body: res.body };
}

/** What must be equal between the two paths: the status, the error and the field it names, the answer's fields (ids differ). */
function shape(a: Answer) {
  const body = JSON.parse(a.body) as Record<string, unknown>;
  const error = body.error as { code: string; en: string; ar: string } | undefined;
  return {
    status: a.status,
    ...(error ? { error, field: body.field, retryAfter: 'retryAfter' in body } : { fields: Object.keys(body), partner: body.partner, coupon: body.coupon }),
    cors: a.headers['access-control-allow-origin'],
    vary: a.headers.vary,
    limit: a.headers['x-ratelimit-limit'],
    contentType: a.headers['content-type'],
  };
}

async function clicksWithId(id: string) {
  return rows<{ trigger: string; link_id: string; partner_id: string | null }>(
    t.database.db,
    sql`SELECT trigger, link_id, partner_id FROM clicks WHERE id = ${id}`,
  );
}

describe('the browser click before the framework', () => {
  test('a cached key is answered without the framework: the click recorded once per visitor, as the route records it', async () => {
    await site();
    const ip = freshIp();
    const first = await overFastPath(JSON.stringify({ via: ada.referralKey, url: `${SITE}/?utm_source=blog` }), { ip });
    expect(first.status, first.body).toBe(200);
    expect(first.headers['x-request-id']).toBeUndefined();
    const body = JSON.parse(first.body) as { clickId: string; partner: { id: string }; coupon: { code: string } };
    expect(body.clickId).toMatch(UUID);
    expect(body.partner).toMatchObject({ id: ada.id, name: 'Ada Partner' });
    expect(body.coupon).toEqual({ code: 'ADA10' });
    // The same visitor again, by either path: the same click id and no second click.
    const again = await overSocket(JSON.stringify({ via: ada.referralKey }), { ip });
    expect(JSON.parse(again.body).clickId).toBe(body.clickId);
    expect(JSON.parse((await throughRoute(JSON.stringify({ via: ada.referralKey }), { ip })).body).clickId).toBe(body.clickId);
    const other = await overSocket(JSON.stringify({ via: ada.referralKey }), { ip, ua: IPHONE });
    expect(JSON.parse(other.body).clickId).not.toBe(body.clickId);
    await expect.poll(async () => (await clicksWithId(body.clickId)).length, { timeout: 10_000 }).toBe(1);
    expect((await clicksWithId(body.clickId))[0]).toEqual({ trigger: 'via', link_id: ada.defaultLinkId, partner_id: ada.id });
    const byShortId = JSON.parse((await overSocket(JSON.stringify({ shortId }), { ip: freshIp() })).body) as { clickId: string };
    await expect.poll(async () => (await clicksWithId(byShortId.clickId)).map((c) => c.link_id), { timeout: 10_000 }).toEqual([linkId]);
  });

  test('what the fast path does not take goes to the route: an unknown key, a foreign origin', async () => {
    await site();
    const unknownKey = `lt_pk_${'A'.repeat(43)}`;
    const unknown = await overSocket(JSON.stringify({ shortId }), { ip: freshIp(), key: unknownKey });
    expect([unknown.status, JSON.parse(unknown.body).error.code]).toEqual([401, 'credential_invalid']);
    expect(unknown.headers['x-request-id']).toBeDefined();
    const foreign = await overSocket(JSON.stringify({ shortId }), { ip: freshIp(), origin: 'https://elsewhere.example' });
    expect([foreign.status, JSON.parse(foreign.body).error.code]).toEqual([403, 'origin_not_allowed']);
    expect(foreign.headers['x-request-id']).toBeDefined();
  });

  test('the same answers as the route for chosen requests', async () => {
    await site();
    const cases = [
      JSON.stringify({ shortId }),
      JSON.stringify({ via: ada.referralKey.toUpperCase(), referrer: 'https://news.example/post' }),
      JSON.stringify({ via: 'nobody-here' }),
      JSON.stringify({ shortId: 'no such id!' }),
      JSON.stringify({ shortId: 'zzzzzzzz' }),
      JSON.stringify({}),
      JSON.stringify({ via: 5 }),
      JSON.stringify({ via: '' }),
      JSON.stringify({ shortId, url: 'x'.repeat(5000) }),
      JSON.stringify({ shortId, extra: { deep: [1, 2, 3] } }),
      JSON.stringify({ shortId, referrer: 'a\u0000b' }),
      JSON.stringify([{ shortId }]),
      '{"shortId":',
      'null',
      '"text"',
    ];
    for (const body of cases) {
      const fast = await overFastPath(body, { ip: freshIp() });
      expect(fast.headers['x-request-id'], body).toBeUndefined();
      expect(shape(fast), body).toEqual(shape(await throughRoute(body, { ip: freshIp() })));
    }
  });

  test('the same answers as the route for random bodies', async () => {
    await site();
    const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(shortId, ada.referralKey, 'nobody', ''), fc.string({ minLength: 95, maxLength: 110 }));
    const value = fc.oneof(text, fc.integer(), fc.constant(null), fc.boolean(), fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }));
    const body = fc.record({ via: value, shortId: value, url: value, referrer: value, other: value }, { requiredKeys: [] });
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const json = JSON.stringify(b);
        const fast = await overFastPath(json, { ip: freshIp() });
        expect(fast.headers['x-request-id'], json).toBeUndefined();
        expect(shape(fast), json).toEqual(shape(await throughRoute(json, { ip: freshIp() })));
      }),
      { numRuns: 60 },
    );
  });

  test("one visitor window for both paths: the 61st request of a minute is 429 by either, and the site's window counts them all", async () => {
    await site();
    time.freeze();
    const ip = freshIp();
    const before = Number((await overSocket(JSON.stringify({ shortId }), { ip: freshIp() })).headers['x-ratelimit-remaining']);
    for (let i = 0; i < 30; i++) expect((await overSocket(JSON.stringify({ shortId }), { ip })).status).toBe(200);
    for (let i = 0; i < 29; i++) expect((await throughRoute(JSON.stringify({ shortId }), { ip })).status).toBe(200);
    // A refused body is counted too, as the route counts a request before reading its body.
    expect((await overSocket('{"via":5}', { ip })).status).toBe(400);
    const limited = await overSocket(JSON.stringify({ shortId }), { ip });
    expect([limited.status, JSON.parse(limited.body).error.code]).toEqual([429, 'visitor_rate_limited']);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['access-control-allow-origin']).toBe(SITE);
    expect((await throughRoute(JSON.stringify({ shortId }), { ip })).status).toBe(429);
    const after = Number((await overSocket(JSON.stringify({ shortId }), { ip: freshIp() })).headers['x-ratelimit-remaining']);
    // 60 counted from the visitor, two refused (counted in the site's window too), and the two probes' second.
    expect(before - after).toBe(63);
  });
});
