/**
 * Attribution from the browser (operations.md §19) through HTTP as a site's pages would call it:
 * the publishable key and its hostnames, the preflight, via clicks (one per visitor, link and
 * hour), client leads and sales with their source and held commissions, and the refusals.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { DESKTOP, IPHONE, UUID } from '../../helpers/visitors.js';
import { SITE, standingClock, trackedSite } from './helpers.js';

let t: TestApp;
const time = standingClock();
beforeAll(async () => {
  t = await startTestApp({ clock: time.clock });
});
afterAll(() => t?.close());
afterEach(() => time.thaw());

/** The error of an answer, with the field it names (beside it in the body). */
const code = (res: { json(): unknown }) => {
  const body = res.json() as { error: { code: string; missingScopes?: unknown }; field?: string };
  return { ...body.error, field: body.field };
};

describe('settings and key', () => {
  test('PUT makes the key once, GET shows it, hostnames are checked and normalised', async () => {
    const s = await trackedSite(t, { hostnames: ['Shop.Example.', '*.shop.example'] });
    expect(s.key).toMatch(/^lt_pk_[A-Za-z0-9_-]{43}$/);
    const got = await s.ok('GET', '/api/tracking');
    expect(got).toEqual({ publishableKey: s.key, previousKeyExpiresAt: null, allowedHostnames: ['shop.example', '*.shop.example'], clientSales: false });
    const again = await s.ok('PUT', '/api/tracking', { allowedHostnames: [], clientSales: true });
    expect(again).toMatchObject({ publishableKey: s.key, allowedHostnames: [], clientSales: true });
    for (const bad of ['*.com', 'shop example', 'https://shop.example', '*.*.shop.example', '']) {
      const res = await s.send('PUT', '/api/tracking', { allowedHostnames: ['ok.example', bad] });
      expect(res.statusCode, bad).toBe(400);
      expect(code(res)).toMatchObject({ code: 'invalid_field', field: 'allowedHostnames[1]' });
    }
  });

  test('an empty list allows no page; a wildcard admits subdomains, not the domain itself', async () => {
    const s = await trackedSite(t, { hostnames: ['*.shop.example'], program: false });
    const [link] = await s.ok('POST', '/api/links', [{ url: `${SITE}/x`, collectionId: s.collectionId }], 201);
    const shortId = new URL(link.shortUrl).pathname.slice(1);
    const at = (origin: string | null) => s.page('/api/track/click', { shortId }, { origin });
    expect((await at('https://www.shop.example')).statusCode).toBe(200);
    expect((await at('http://a.b.shop.example:8080')).statusCode).toBe(200);
    for (const origin of [SITE, 'https://evilshop.example', 'https://shop.example.evil.test', null, 'null']) {
      const res = await at(origin);
      expect(res.statusCode, String(origin)).toBe(403);
      expect(code(res).code).toBe('origin_not_allowed');
      expect(code(res).missingScopes).toBeUndefined();
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
    await s.ok('PUT', '/api/tracking', { allowedHostnames: [] });
    expect((await at('https://www.shop.example')).statusCode).toBe(403);
  });

  test('rotate: the former key works 24 hours beside the new one, or stops at once with immediate', async () => {
    const s = await trackedSite(t, { program: false });
    const [link] = await s.ok('POST', '/api/links', [{ url: `${SITE}/x`, collectionId: s.collectionId }], 201);
    const shortId = new URL(link.shortUrl).pathname.slice(1);
    const rotated = await s.ok('POST', '/api/tracking/rotate', {});
    expect(rotated.publishableKey).not.toBe(s.key);
    expect(Date.parse(rotated.previousKeyExpiresAt) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect((await s.page('/api/track/click', { shortId }, { key: s.key })).statusCode).toBe(200);
    expect((await s.page('/api/track/click', { shortId }, { key: rotated.publishableKey })).statusCode).toBe(200);
    const now = await s.ok('POST', '/api/tracking/rotate', { immediate: true });
    expect(now.previousKeyExpiresAt).toBeNull();
    for (const old of [s.key, rotated.publishableKey]) {
      const res = await s.page('/api/track/click', { shortId }, { key: old });
      expect(res.statusCode).toBe(401);
    }
    expect((await s.page('/api/track/click', { shortId }, { key: now.publishableKey })).statusCode).toBe(200);
  });

  test('the key is none of the API: a workspace route answers 401', async () => {
    const s = await trackedSite(t, { program: false });
    for (const headers of [{ authorization: `Bearer ${s.key}` }, { 'x-api-key': s.key }]) {
      const res = await t.inject({ method: 'GET', url: '/api/links', headers: { ...headers, origin: SITE } });
      expect(res.statusCode).toBe(401);
      expect(code(res).code).toBe('publishable_key_elsewhere');
    }
  });
});

describe('preflight', () => {
  test('an allowed origin gets the CORS answer, never with credentials; another gets none', async () => {
    await trackedSite(t, { hostnames: ['preflight.example'], program: false });
    for (const url of ['/api/track/click', '/api/track/lead/client', '/api/track/sale/client']) {
      const res = await t.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin: 'https://preflight.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type',
        },
      });
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('https://preflight.example');
      expect(res.headers.vary).toMatch(/Origin/);
      expect(res.headers['access-control-allow-methods']).toBe('POST');
      expect(res.headers['access-control-allow-headers']).toBe('Authorization, Content-Type');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
    const refused = await t.inject({ method: 'OPTIONS', url: '/api/track/click', headers: { origin: 'https://nobody-allows.example' } });
    expect(refused.statusCode).toBe(204);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect(refused.headers['access-control-allow-methods']).toBeUndefined();
  });
});

describe('POST /api/track/click', () => {
  test("a via key records a click on the partner's default link, once per visitor and hour, counted as a click", async () => {
    const s = await trackedSite(t);
    const ada = await s.partner('Ada Partner', { couponCodes: ['ADA10'] });
    const first = await s.page('/api/track/click', {
      via: ada.referralKey.toUpperCase(),
      url: `${SITE}/?via=x&utm_source=blog`,
      referrer: 'https://news.example/post',
    });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['access-control-allow-origin']).toBe(SITE);
    expect(first.headers.vary).toMatch(/Origin/);
    expect(first.headers['access-control-allow-credentials']).toBeUndefined();
    const body = first.json<{ clickId: string; partner: { id: string; name: string }; coupon: { code: string } }>();
    expect(body.clickId).toMatch(UUID);
    expect(body.partner).toMatchObject({ id: ada.id, name: 'Ada Partner' });
    expect(body.coupon).toEqual({ code: 'ADA10' });
    // The same visitor again: the same id; another browser: another click.
    const again = await s.page('/api/track/click', { via: ada.referralKey });
    expect(again.json<{ clickId: string }>().clickId).toBe(body.clickId);
    const other = await s.page('/api/track/click', { via: ada.referralKey }, { ua: IPHONE });
    expect(other.json<{ clickId: string }>().clickId).not.toBe(body.clickId);
    // Both are clicks of the default link, trigger via, with the visitor's fields.
    await expect.poll(async () => (await s.ok('GET', `/api/analytics?linkId=${ada.defaultLinkId}`)).length, { timeout: 10_000 }).toBe(2);
    const clicks = await s.ok('GET', `/api/analytics?linkId=${ada.defaultLinkId}&sort=asc`);
    expect(clicks[0]).toMatchObject({ id: body.clickId, partnerId: ada.id, country: 'GB', device: 'desktop', referrer: 'news.example', trigger: 'via' });
    expect(clicks[1]).toMatchObject({ device: 'mobile', trigger: 'via' });
    const byTrigger = await s.ok('GET', `/api/analytics?groupBy=trigger`);
    expect(byTrigger.find((r: { key: string }) => r.key === 'via')).toMatchObject({ clicks: 2 });
  });

  test('unknown, pending and banned partners alike are 400 unknown_via; a short id must be a link of the workspace', async () => {
    const s = await trackedSite(t);
    await s.ok('POST', '/api/partners', [{ name: 'Pen Ding', status: 'pending', referralKey: 'pen-ding' }], 201);
    const banned = await s.partner('Ban Ned');
    expect((await s.page('/api/track/click', { via: banned.referralKey })).statusCode).toBe(200);
    await s.ok('PUT', '/api/partners', [{ id: banned.id, status: 'banned' }]);
    // What the routes cached of the partner lasts a few seconds.
    await expect
      .poll(async () => (await s.page('/api/track/click', { via: banned.referralKey }, { ua: 'later' })).statusCode, { timeout: 15_000, interval: 500 })
      .toBe(400);
    for (const via of ['nobody-here', 'pen-ding', banned.referralKey]) {
      const res = await s.page('/api/track/click', { via });
      expect(res.statusCode, via).toBe(400);
      expect(code(res).code).toBe('unknown_via');
    }
    const other = await trackedSite(t, { program: false });
    const [foreign] = await other.ok('POST', '/api/links', [{ url: `${SITE}/y`, collectionId: other.collectionId }], 201);
    const res = await s.page('/api/track/click', { shortId: new URL(foreign.shortUrl).pathname.slice(1) });
    expect(res.statusCode).toBe(400);
    expect(code(res).code).toBe('unknown_via');
    const [mine] = await s.ok('POST', '/api/links', [{ url: `${SITE}/z`, collectionId: s.collectionId }], 201);
    const ok = await s.page('/api/track/click', { shortId: new URL(mine.shortUrl).pathname.slice(1) });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ clickId: expect.stringMatching(UUID) });
  });

  test('credentials: none, malformed, an API key, unknown', async () => {
    const s = await trackedSite(t, { program: false });
    const none = await t.inject({ method: 'POST', url: '/api/track/click', headers: { origin: SITE, 'content-type': 'application/json' }, payload: '{}' });
    expect(none.statusCode).toBe(401);
    for (const key of ['lt_pk_short', s.ws.key, `lt_pk_${'A'.repeat(43)}`]) {
      const res = await s.page('/api/track/click', { via: 'x' }, { key });
      expect(res.statusCode, key).toBe(401);
    }
  });
});

describe('client leads and sales', () => {
  test('a lead from a browser: source client, its commission held (clientEvent); never the latest lead of a later sale', async () => {
    const s = await trackedSite(t);
    const ada = await s.partner('Ada Lead');
    const { clickId } = (await s.page('/api/track/click', { via: ada.referralKey })).json<{ clickId: string }>();
    const lead = await s.page('/api/track/lead/client', { clickId, eventName: 'Sign up', customerExternalId: 'cu-1', customerName: 'Cam' });
    expect(lead.statusCode, lead.body).toBe(200);
    expect(lead.headers['access-control-allow-origin']).toBe(SITE);
    expect(lead.json()).toMatchObject({ clickId, linkId: ada.defaultLinkId, source: 'client', customer: { externalId: 'cu-1', name: 'Cam' } });
    const commissions = await s.ok('GET', '/api/commissions');
    expect(commissions).toHaveLength(1);
    expect(commissions[0]).toMatchObject({ partnerId: ada.id, type: 'lead', status: 'held', holdReasons: ['clientEvent'] });
    const events = await s.ok('GET', '/api/events');
    expect(events[0]).toMatchObject({ type: 'lead', source: 'client' });
    // A server sale without a click id finds no lead to follow.
    const sale = await s.send('POST', '/api/track/sale', { customerExternalId: 'cu-1', customerName: 'Cam', amount: 1000 });
    expect(sale.statusCode).toBe(400);
    expect(code(sale)).toMatchObject({ field: 'customerExternalId' });
  });

  test('an existing customer is left as it is and earns nothing; a trusted program earns unheld', async () => {
    const s = await trackedSite(t, { trust: true });
    const ada = await s.partner('Ada Trust');
    const { clickId } = (await s.page('/api/track/click', { via: ada.referralKey })).json<{ clickId: string }>();
    const first = await s.page('/api/track/lead/client', {
      clickId,
      eventName: 'Sign up',
      customerExternalId: 'cu-2',
      customerName: 'Cam',
      customerEmail: 'cam@example.com',
    });
    expect(first.statusCode, first.body).toBe(200);
    const second = await s.page('/api/track/lead/client', {
      clickId,
      eventName: 'Trial',
      customerExternalId: 'cu-2',
      customerName: 'Mallory',
      customerEmail: null,
    });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json()).toMatchObject({ source: 'client', customer: { name: 'Cam', email: 'cam@example.com' } });
    const commissions = await s.ok('GET', '/api/commissions');
    expect(commissions).toHaveLength(1);
    expect(commissions[0]).toMatchObject({ type: 'lead', status: 'pending', holdReasons: [] });
  });

  test('refusals: deferred, leadEventName, another workspace’s click, sales while clientSales is off', async () => {
    const s = await trackedSite(t);
    const ada = await s.partner('Ada Refused');
    const { clickId } = (await s.page('/api/track/click', { via: ada.referralKey })).json<{ clickId: string }>();
    const deferred = await s.page('/api/track/lead/client', { clickId: '', eventName: 'Sign up', customerExternalId: 'cu-3', customerName: 'Cam' });
    expect(deferred.statusCode).toBe(400);
    expect(code(deferred)).toMatchObject({ code: 'invalid_field', field: 'clickId' });
    const other = await trackedSite(t, { program: false });
    const foreign = await other.page('/api/track/lead/client', { clickId, eventName: 'Sign up', customerExternalId: 'cu-3', customerName: 'Cam' });
    expect(foreign.statusCode).toBe(400);
    const off = await s.page('/api/track/sale/client', { clickId, customerExternalId: 'cu-3', customerName: 'Cam', amount: 500 });
    expect(off.statusCode).toBe(403);
    expect(code(off).code).toBe('client_sales_off');
    await s.ok('PUT', '/api/tracking', { allowedHostnames: ['shop.example'], clientSales: true });
    const named = await s.page('/api/track/sale/client', { clickId, customerExternalId: 'cu-3', customerName: 'Cam', amount: 500, leadEventName: 'Sign up' });
    expect(named.statusCode).toBe(400);
    expect(code(named)).toMatchObject({ field: 'leadEventName' });
    const sale = await s.page('/api/track/sale/client', { clickId, customerExternalId: 'cu-3', customerName: 'Cam', amount: 500, currency: 'usd' });
    expect(sale.statusCode, sale.body).toBe(200);
    expect(sale.json()).toMatchObject({ source: 'client', amount: 500 });
    const commissions = await s.ok('GET', '/api/commissions');
    expect(commissions[0]).toMatchObject({ type: 'sale', earnings: 50, status: 'held', holdReasons: ['clientEvent'] });
  });
});

describe('rate limits', () => {
  test("per visitor address 60 a minute, and the site's own window (X-RateLimit-*), never the API's", async () => {
    const s = await trackedSite(t, { program: false });
    const [link] = await s.ok('POST', '/api/links', [{ url: `${SITE}/x`, collectionId: s.collectionId }], 201);
    const shortId = new URL(link.shortUrl).pathname.slice(1);
    time.freeze();
    const first = await s.page('/api/track/click', { shortId }, { ip: '5.9.0.1' });
    expect(Number(first.headers['x-ratelimit-limit'])).toBe(10_000_000);
    for (let i = 1; i < 60; i++) expect((await s.page('/api/track/click', { shortId }, { ip: '5.9.0.1' })).statusCode).toBe(200);
    const limited = await s.page('/api/track/click', { shortId }, { ip: '5.9.0.1' });
    expect(limited.statusCode).toBe(429);
    expect(code(limited).code).toBe('visitor_rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await s.page('/api/track/click', { shortId }, { ip: '5.9.0.2' })).statusCode).toBe(200);
    // The API's window is untouched by all of them.
    const api = await s.send('GET', '/api/links');
    expect(Number(api.headers['x-ratelimit-remaining'])).toBeGreaterThan(1_000_000 - 20);
    void DESKTOP;
  });
});
