/**
 * The visitor side over HTTP (api.md "Link resolution order", "States and transitions";
 * operations.md §5–6): every branch of GET/HEAD /{shortId}, the password form, the click
 * written for each forwarding, /attribution.js and the caching headers of /api/qr.
 *
 * Two instances on one database: `t` (the app under test: a controllable clock, the trusted
 * country header `cf-ipcountry`, and private destinations allowed so a link can be cloaked
 * onto a local HTTPS page) and `plain` (the defaults: no country header is trusted).
 * Clicks are written in batches; the tests poll the clicks table (bounded) for them.
 */
import vm from 'node:vm';
import { gzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { startFramableSite } from '../../helpers/framable-site.js';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { ANDROID, DESKTOP, IP_DE, IP_GB, IP_US, IPAD, IPHONE, UUID } from '../../helpers/visitors.js';

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

/** The server's clock: starts at the real time and only ever moves forward. */
let nowMs = Date.now();
const clock = () => new Date(nowMs);
const advanceTo = (ms: number) => {
  nowMs = Math.max(nowMs, ms);
};

let t: TestApp;
let plain: TestApp;
let framable: Awaited<ReturnType<typeof startFramableSite>> | undefined;
/** An https page on 127.0.0.1 that anyone may frame: a valid cloaking destination for `t`. */
let framableUrl: string;

beforeAll(async () => {
  framable = await startFramableSite();
  framableUrl = framable.url;
  t = await startTestApp({ clock, env: { COUNTRY_HEADER: 'cf-ipcountry', ALLOW_PRIVATE_DESTINATIONS: 'true' } });
  plain = await startTestApp({ clock, database: t.database });
});

afterAll(async () => {
  await plain?.close();
  await t?.close();
  await framable?.close();
});

type Item = Record<string, unknown>;

interface Link {
  id: string;
  url: string;
  shortUrl: string;
  password: string | null;
  [field: string]: unknown;
}

/** A link and the path it is served at. */
interface Served extends Link {
  path: string;
}

/** A fresh workspace (enterprise: every feature) with a collection, used through the API. */
async function client(app: TestApp = t) {
  const ws = await app.workspace({ rateLimitPerMinute: 1_000_000 });
  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
    app.inject({ method, url, headers: { ...bearer(ws.key), 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  const col = await send('POST', '/api/collections', [{ name: 'Redirects' }]);
  expect(col.statusCode, col.body).toBe(201);
  const collectionId = col.json<{ id: string }[]>()[0]!.id;
  const served = (l: Link): Served => ({ ...l, path: new URL(l.shortUrl).pathname });
  return {
    async create(extra: Item = {}): Promise<Served> {
      const res = await send('POST', '/api/links', [{ url: 'https://shop.example/landing', collectionId, ...extra }]);
      expect(res.statusCode, res.body).toBe(201);
      return served(res.json<Link[]>()[0]!);
    },
    async update(item: Item): Promise<Served> {
      const res = await send('PUT', '/api/links', [item]);
      expect(res.statusCode, res.body).toBe(200);
      return served(res.json<Link[]>()[0]!);
    },
    async remove(ids: string[]) {
      const res = await send('DELETE', '/api/links', ids);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ deletedIds: ids });
    },
    async partner(): Promise<string> {
      const res = await send('POST', '/api/partners', [{ name: 'Affiliate' }]);
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: string }[]>()[0]!.id;
    },
  };
}

interface VisitOptions {
  ua?: string;
  ip?: string;
  headers?: Record<string, string>;
  method?: 'GET' | 'HEAD';
  app?: TestApp;
}

/** A visitor opening a short link (a desktop browser unless told otherwise). */
function visit(path: string, o: VisitOptions = {}): Promise<LightMyRequestResponse> {
  return (o.app ?? t).inject({
    method: o.method ?? 'GET',
    url: path,
    remoteAddress: o.ip ?? '127.0.0.1',
    headers: { 'user-agent': o.ua ?? DESKTOP, ...o.headers },
  });
}

/** A 302's destination without our click id, and the click id. */
function forwarded(res: LightMyRequestResponse): { to: string; clickId: string } {
  expect(res.statusCode, res.body).toBe(302);
  const location = res.headers.location;
  expect(typeof location).toBe('string');
  const url = new URL(location as string);
  const clickId = url.searchParams.get('ltid');
  expect(clickId).toMatch(UUID);
  url.searchParams.delete('ltid');
  return { to: url.href.replace(/\?$/, ''), clickId: clickId! };
}

/** Where a 302 goes: origin and path only. */
const target = (res: LightMyRequestResponse) => {
  expect(res.statusCode, res.body).toBe(302);
  const url = new URL(res.headers.location as string);
  return url.origin + url.pathname;
};

function expectHtml(res: LightMyRequestResponse, status: number) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.body).toMatch(/^<!doctype html>/i);
  expect(res.headers.location).toBeUndefined();
}

interface ClickRow {
  id: string;
  linkId: string;
  partnerId: string | null;
  createdAt: string | Date;
  country: string | null;
  device: string;
  browser: string | null;
  os: string | null;
  referrer: string;
  referrerUrl: string | null;
  bot: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The link's clicks in write order, once `done` holds (polled for at most 5 s: clicks are written in batches). */
async function clicksOf(linkId: string, done: (found: ClickRow[]) => boolean): Promise<ClickRow[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const found = await rows<ClickRow>(
      t.database.db,
      sql`SELECT id, link_id AS "linkId", partner_id AS "partnerId", created_at AS "createdAt", country, device, browser, os,
                 referrer, referrer_url AS "referrerUrl", bot
            FROM clicks WHERE link_id = ${linkId} ORDER BY seq`,
    );
    if (done(found) || Date.now() >= deadline) return found;
    await sleep(25);
  }
}

const withIds = (ids: string[]) => (found: ClickRow[]) => ids.every((id) => found.some((c) => c.id === id));

/**
 * Proves that what happened before recorded no click: a normal visit now, and once its click
 * is written (clicks are written in order) it is the link's only one.
 */
async function expectNoClickSoFar(link: Served) {
  const { clickId } = forwarded(await visit(link.path));
  const found = await clicksOf(link.id, withIds([clickId]));
  expect(found.map((c) => c.id)).toEqual([clickId]);
}

describe('forwarding', () => {
  it('302 to the url with its own query, the utm values and the click id merged, fragment last; no-store', async () => {
    const api = await client();
    const link = await api.create({
      url: 'https://shop.example/p?color=red&q=caf%C3%A9#reviews',
      utm: { source: 'newsletter', medium: 'email', campaign: 'spring', term: 'shoes', content: 'hero', referral: 'partner-x' },
    });
    const res = await visit(link.path);
    expect(res.statusCode).toBe(302);
    expect(res.headers['cache-control']).toMatch(/no-store/);
    expect(res.body).toBe('');
    const location = res.headers.location as string;
    expect(location.startsWith('https://shop.example/p?color=red&q=caf%C3%A9&')).toBe(true);
    expect(location.endsWith('#reviews')).toBe(true);
    const url = new URL(location);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      color: 'red',
      q: 'café',
      utm_source: 'newsletter',
      utm_medium: 'email',
      utm_campaign: 'spring',
      utm_term: 'shoes',
      utm_content: 'hero',
      ref: 'partner-x',
      ltid: expect.stringMatching(UUID),
    });
    const found = await clicksOf(link.id, withIds([url.searchParams.get('ltid')!]));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ id: url.searchParams.get('ltid'), linkId: link.id });
  });

  it('each GET records exactly one click, whose id is the ltid it was sent with', async () => {
    const api = await client();
    const link = await api.create();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(forwarded(await visit(link.path)).clickId);
    expect(new Set(ids).size).toBe(3);
    const found = await clicksOf(link.id, withIds(ids));
    expect(found.map((c) => c.id).sort()).toEqual([...ids].sort());
  });

  it('the click row: link, partner, country, device, browser, os, referrer and time', async () => {
    const api = await client();
    const partnerId = await api.partner();
    const link = await api.create({ partnerId });
    const fromPhone = forwarded(await visit(link.path, { ua: IPHONE, ip: IP_DE, headers: { referer: 'https://news.example.com/story?id=7' } }));
    const at = nowMs;
    const fromDesktop = forwarded(await visit(link.path, { ua: DESKTOP, ip: IP_GB }));
    const found = await clicksOf(link.id, withIds([fromPhone.clickId, fromDesktop.clickId]));
    const phone = found.find((c) => c.id === fromPhone.clickId);
    const desktop = found.find((c) => c.id === fromDesktop.clickId);
    expect(phone).toMatchObject({
      linkId: link.id,
      partnerId,
      country: 'DE',
      device: 'mobile',
      browser: expect.stringMatching(/safari/i),
      os: 'iOS',
      referrer: 'news.example.com',
      referrerUrl: 'https://news.example.com/story?id=7',
      bot: false,
    });
    expect(desktop).toMatchObject({
      linkId: link.id,
      partnerId,
      country: 'GB',
      device: 'desktop',
      browser: 'Chrome',
      os: 'Windows',
      referrer: '(direct)',
      referrerUrl: null,
      bot: false,
    });
    expect(new Date(desktop!.createdAt).getTime()).toBe(at);
  });

  it('an unknown short id → 404 HTML page (GET and HEAD)', async () => {
    const res = await visit('/Zz9Yy8Xx');
    expectHtml(res, 404);
    const head = await visit('/Zz9Yy8Xx', { method: 'HEAD' });
    expect(head.statusCode).toBe(404);
    expect(head.body).toBe('');
  });

  it('a deleted link → 404 HTML page at once (even after it was served and cached)', async () => {
    const api = await client();
    const link = await api.create({ url: 'https://shop.example/gone' });
    expect(target(await visit(link.path))).toBe('https://shop.example/gone');
    await api.remove([link.id]);
    const res = await visit(link.path);
    expectHtml(res, 404);
    expect(res.body).not.toContain('shop.example');
  });

  it('an update through the API is honoured at once by the next visit', async () => {
    const api = await client();
    const link = await api.create({ url: 'https://shop.example/old' });
    expect(target(await visit(link.path))).toBe('https://shop.example/old');
    await api.update({ id: link.id, url: 'https://shop.example/new', utm: { source: 'fresh' } });
    const res = await visit(link.path);
    expect(target(res)).toBe('https://shop.example/new');
    expect(new URL(res.headers.location as string).searchParams.get('utm_source')).toBe('fresh');
    await api.update({ id: link.id, password: 'now-locked' });
    expectHtml(await visit(link.path), 401);
  });
});

describe('expiry (server time later than expiresAt)', () => {
  /** A whole second at least a minute ahead of the server clock. */
  const soon = () => Math.ceil((nowMs + 60_000) / 1000) * 1000;
  const targeting = {
    ios: 'https://apps.apple.com/app/id42',
    android: 'https://play.google.com/store/apps/details?id=shop',
    geo: { GB: 'https://shop.example/uk', DE: 'https://shop.example/de' },
  };

  it('→ 302 to expiredUrl, or a 410 HTML page without one; device and geo targeting do not run', async () => {
    const api = await client();
    const expiresAt = soon();
    const withUrl = await api.create({ ...targeting, expiresAt: new Date(expiresAt).toISOString(), expiredUrl: 'https://shop.example/expired' });
    const withoutUrl = await api.create({ ...targeting, url: 'https://shop.example/live', expiresAt: new Date(expiresAt).toISOString() });

    // Before: targeting runs.
    for (const link of [withUrl, withoutUrl]) {
      expect(forwarded(await visit(link.path, { ua: IPHONE })).to).toBe(targeting.ios);
      expect(forwarded(await visit(link.path, { ua: ANDROID })).to).toBe(targeting.android);
      expect(forwarded(await visit(link.path, { ip: IP_GB })).to).toBe(targeting.geo.GB);
      expect(forwarded(await visit(link.path, { headers: { 'cf-ipcountry': 'DE' } })).to).toBe(targeting.geo.DE);
    }

    advanceTo(expiresAt + 1_000);
    const visitors: VisitOptions[] = [
      {},
      { ua: IPHONE },
      { ua: IPAD },
      { ua: ANDROID },
      { ip: IP_GB },
      { ip: IP_DE, ua: IPHONE },
      { headers: { 'cf-ipcountry': 'DE' } },
    ];
    for (const v of visitors) {
      expect(target(await visit(withUrl.path, v)), JSON.stringify(v)).toBe('https://shop.example/expired');
      const gone = await visit(withoutUrl.path, v);
      expectHtml(gone, 410);
      for (const url of [withoutUrl.url, targeting.ios, targeting.android, targeting.geo.GB, targeting.geo.DE]) expect(gone.body).not.toContain(url);
    }
    const head = await visit(withoutUrl.path, { method: 'HEAD' });
    expect(head.statusCode).toBe(410);
    expect(head.body).toBe('');
  });

  it('at expiresAt itself the link still forwards; one millisecond later it has expired', async () => {
    const api = await client();
    const expiresAt = soon();
    const link = await api.create({ url: 'https://shop.example/live', expiresAt: new Date(expiresAt).toISOString() });
    advanceTo(expiresAt);
    expect(forwarded(await visit(link.path)).to).toBe('https://shop.example/live');
    advanceTo(expiresAt + 1);
    expectHtml(await visit(link.path), 410);
  });

  it('PUT expiresAt null brings an expired link back at once', async () => {
    const api = await client();
    const expiresAt = soon();
    const link = await api.create({
      url: 'https://shop.example/again',
      expiresAt: new Date(expiresAt).toISOString(),
      expiredUrl: 'https://shop.example/expired',
    });
    advanceTo(expiresAt + 1_000);
    expect(target(await visit(link.path))).toBe('https://shop.example/expired');
    await api.update({ id: link.id, expiresAt: null });
    expect(forwarded(await visit(link.path)).to).toBe('https://shop.example/again');
  });
});

describe('device targeting', () => {
  it('iPhone, iPad → ios; Android → android; anything else → url; utm and click id added to each', async () => {
    const api = await client();
    const link = await api.create({
      url: 'https://shop.example/web',
      ios: 'https://apps.apple.com/app/id42?mt=8',
      android: 'https://play.google.com/store/apps/details?id=shop',
      utm: { source: 'qr' },
    });
    const go = async (ua: string) => {
      const res = await visit(link.path, { ua });
      const url = new URL(res.headers.location as string);
      expect(url.searchParams.get('utm_source')).toBe('qr');
      return forwarded(res).to;
    };
    expect(await go(IPHONE)).toBe('https://apps.apple.com/app/id42?mt=8&utm_source=qr');
    expect(await go(IPAD)).toBe('https://apps.apple.com/app/id42?mt=8&utm_source=qr');
    expect(await go(ANDROID)).toBe('https://play.google.com/store/apps/details?id=shop&utm_source=qr');
    expect(await go(DESKTOP)).toBe('https://shop.example/web?utm_source=qr');
    expect(await go('')).toBe('https://shop.example/web?utm_source=qr');
  });

  it('a device destination comes before geo; a platform without one falls through to geo', async () => {
    const api = await client();
    const link = await api.create({ url: 'https://shop.example/web', ios: 'https://apps.apple.com/app/id42', geo: { GB: 'https://shop.example/uk' } });
    expect(target(await visit(link.path, { ua: IPHONE, ip: IP_GB }))).toBe('https://apps.apple.com/app/id42');
    expect(target(await visit(link.path, { ua: ANDROID, ip: IP_GB }))).toBe('https://shop.example/uk');
  });
});

describe('geo targeting', () => {
  const geo = { GB: 'https://shop.example/uk', DE: 'https://shop.example/de' };

  it('by the IP address: a listed country gets its URL, any other the default', async () => {
    const api = await client();
    const link = await api.create({ url: 'https://shop.example/world', geo });
    expect(target(await visit(link.path, { ip: IP_GB }))).toBe(geo.GB);
    expect(target(await visit(link.path, { ip: IP_DE }))).toBe(geo.DE);
    expect(target(await visit(link.path, { ip: IP_US }))).toBe('https://shop.example/world');
    expect(target(await visit(link.path, { ip: '127.0.0.1' }))).toBe('https://shop.example/world');
  });

  it('COUNTRY_HEADER configured: the trusted header wins over the IP; unknown values fall back to the IP', async () => {
    const api = await client();
    const link = await api.create({ url: 'https://shop.example/world', geo });
    const byHeader = await visit(link.path, { ip: IP_GB, headers: { 'cf-ipcountry': 'DE' } });
    expect(target(byHeader)).toBe(geo.DE);
    expect(target(await visit(link.path, { ip: IP_GB, headers: { 'cf-ipcountry': 'de' } }))).toBe(geo.DE);
    expect(target(await visit(link.path, { ip: IP_GB, headers: { 'cf-ipcountry': 'US' } }))).toBe('https://shop.example/world');
    expect(target(await visit(link.path, { ip: IP_US, headers: { 'cf-ipcountry': 'GB' } }))).toBe(geo.GB);
    // Cloudflare's "unknown" and "Tor" codes, and garbage, are not countries: the IP decides.
    for (const value of ['XX', 'T1', 'not-a-country']) {
      expect(target(await visit(link.path, { ip: IP_GB, headers: { 'cf-ipcountry': value } })), value).toBe(geo.GB);
    }
    // The click is recorded with the trusted country.
    const { clickId } = forwarded(byHeader);
    const found = await clicksOf(link.id, withIds([clickId]));
    expect(found.find((c) => c.id === clickId)?.country).toBe('DE');
  });

  it('COUNTRY_HEADER not configured: the header is ignored and the IP decides', async () => {
    const api = await client(plain);
    const link = await api.create({ url: 'https://shop.example/world', geo });
    expect(target(await visit(link.path, { app: plain, ip: IP_GB, headers: { 'cf-ipcountry': 'DE' } }))).toBe(geo.GB);
    expect(target(await visit(link.path, { app: plain, ip: IP_US, headers: { 'cf-ipcountry': 'DE' } }))).toBe('https://shop.example/world');
    const res = await visit(link.path, { app: plain, ip: IP_US, headers: { 'cf-ipcountry': 'GB' } });
    const { clickId } = forwarded(res);
    const found = await clicksOf(link.id, withIds([clickId]));
    expect(found.find((c) => c.id === clickId)?.country).toBe('US');
  });
});

describe('password gate', () => {
  const form = (password: string, o: { ip?: string; app?: TestApp } = {}) => ({
    method: 'POST' as const,
    remoteAddress: o.ip ?? '127.0.0.1',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': DESKTOP },
    payload: new URLSearchParams({ password }).toString(),
  });
  const submit = (link: Served, password: string, o: { ip?: string } = {}) => t.inject({ url: link.path, ...form(password, o) });

  /** The cookie pair of a 303, after checking its attributes. */
  function cookieOf(res: LightMyRequestResponse, link: Served): string {
    expect(res.statusCode, res.body).toBe(303);
    expect(new URL(res.headers.location as string, link.shortUrl).href).toBe(link.shortUrl);
    const header = res.headers['set-cookie'];
    expect(typeof header).toBe('string');
    const [pair, ...attributes] = (header as string).split(';').map((s) => s.trim());
    const lower = attributes.map((a) => a.toLowerCase());
    expect(lower).toContain('httponly');
    expect(lower).toContain('secure');
    expect(lower).toContain('samesite=lax');
    expect(attributes).toContain(`Path=${link.path}`);
    expect(pair).toMatch(/^[^=]+=.+/);
    return pair!;
  }

  const secret = { url: 'https://vault.example/secret-path-7f3a', ios: 'https://vault-ios.example/app', geo: { GB: 'https://vault-uk.example/x' } };
  const leaks = (body: string) => ['vault.example', 'secret-path-7f3a', 'vault-ios.example', 'vault-uk.example'].filter((s) => body.includes(s));

  it('GET without the cookie → 401 HTML form posting "password" to the link; the destination is never revealed', async () => {
    const api = await client();
    const link = await api.create({ ...secret, password: 'open sesame' });
    for (const v of [{}, { ua: IPHONE }, { ip: IP_GB }, { ua: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' }]) {
      const res = await visit(link.path, v);
      expectHtml(res, 401);
      expect(res.body).toMatch(/<form[^>]*method="post"/i);
      expect(res.body).toContain(`action="${link.path}"`);
      expect(res.body).toMatch(/<input[^>]*name="password"/);
      expect(leaks(res.body)).toEqual([]);
      expect(JSON.stringify(res.headers)).not.toContain('vault');
    }
    const head = await visit(link.path, { method: 'HEAD' });
    expect(head.statusCode).toBe(401);
    expect(head.headers.location).toBeUndefined();
  });

  it('a wrong password → 401 form again, no cookie; a missing one too', async () => {
    const api = await client();
    const link = await api.create({ ...secret, password: 'open sesame' });
    const wrong = await submit(link, 'open sesame!');
    expectHtml(wrong, 401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expect(wrong.body).toMatch(/<form/);
    expect(leaks(wrong.body)).toEqual([]);
    const missing = await t.inject({ ...form(''), url: link.path, payload: 'other=1' });
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['set-cookie']).toBeUndefined();
  });

  it('the right password → 303 back with a Secure HttpOnly SameSite=Lax cookie for this path; with it GET forwards', async () => {
    const api = await client();
    const link = await api.create({ ...secret, password: 'open sesame', utm: { source: 'vip' } });
    const cookie = cookieOf(await submit(link, 'open sesame'), link);
    const res = await visit(link.path, { headers: { cookie: `theme=dark; ${cookie}` } });
    const { to, clickId } = forwarded(res);
    expect(to).toBe('https://vault.example/secret-path-7f3a?utm_source=vip');
    expect((await clicksOf(link.id, withIds([clickId]))).map((c) => c.id)).toEqual([clickId]);
    // Unlocked, the rest of the order applies.
    expect(target(await visit(link.path, { ua: IPHONE, headers: { cookie } }))).toBe(secret.ios);
    expect(target(await visit(link.path, { ip: IP_GB, headers: { cookie } }))).toBe(secret.geo.GB);
    // Without the cookie: still the form.
    expectHtml(await visit(link.path), 401);
  });

  it("another link's cookie does not unlock a link (even with the same password)", async () => {
    const api = await client();
    const a = await api.create({ url: 'https://vault.example/a', password: 'same' });
    const b = await api.create({ url: 'https://vault.example/b', password: 'same' });
    const cookieA = cookieOf(await submit(a, 'same'), a);
    expect(target(await visit(a.path, { headers: { cookie: cookieA } }))).toBe('https://vault.example/a');
    const res = await visit(b.path, { headers: { cookie: cookieA } });
    expectHtml(res, 401);
    expect(res.body).not.toContain('vault.example/b');
    // A forged value under the same name does nothing either.
    expectHtml(await visit(b.path, { headers: { cookie: `${cookieA.split('=')[0]}=forged` } }), 401);
  });

  it('changing the password through PUT invalidates earlier cookies; other updates keep them', async () => {
    const api = await client();
    const link = await api.create({ url: 'https://vault.example/rotating', password: 'first' });
    const cookie = cookieOf(await submit(link, 'first'), link);
    expect(target(await visit(link.path, { headers: { cookie } }))).toBe('https://vault.example/rotating');

    await api.update({ id: link.id, title: 'Renamed' });
    expect(target(await visit(link.path, { headers: { cookie } }))).toBe('https://vault.example/rotating');

    await api.update({ id: link.id, password: 'second' });
    expectHtml(await visit(link.path, { headers: { cookie } }), 401);
    expectHtml(await submit(link, 'first'), 401);
    const fresh = cookieOf(await submit(link, 'second'), link);
    expect(target(await visit(link.path, { headers: { cookie: fresh } }))).toBe('https://vault.example/rotating');

    // Removing the password opens the link to everyone.
    await api.update({ id: link.id, password: null });
    expect(target(await visit(link.path))).toBe('https://vault.example/rotating');
  });

  it('attempts are limited per visitor: the 11th wrong one within a minute → 429', async () => {
    const api = await client();
    const link = await api.create({ url: 'https://vault.example/guarded', password: 'hunter2' });
    const attacker = '203.0.113.7';
    for (let i = 1; i <= 10; i++) expect((await submit(link, `guess-${i}`, { ip: attacker })).statusCode, `attempt ${i}`).toBe(401);
    const limited = await submit(link, 'guess-11', { ip: attacker });
    expectHtml(limited, 429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['set-cookie']).toBeUndefined();
    expect(leaks(limited.body)).toEqual([]);
    // Even the right password waits while the visitor is limited.
    const right = await submit(link, 'hunter2', { ip: attacker });
    expect(right.statusCode).toBe(429);
    expect(right.headers['set-cookie']).toBeUndefined();
    // Another visitor is not affected.
    expect((await submit(link, 'nope', { ip: '198.51.100.9' })).statusCode).toBe(401);
    cookieOf(await submit(link, 'hunter2', { ip: '198.51.100.9' }), link);
    // A minute later the first visitor may try again.
    advanceTo(nowMs + 61_000);
    cookieOf(await submit(link, 'hunter2', { ip: attacker }), link);
  });
});

describe('cloaking', () => {
  const unescapeHtml = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');

  it('a cloaked link → 200 HTML whose full-page iframe shows the destination with utm and ltid; one click recorded', async () => {
    const api = await client();
    const link = await api.create({ url: `${framableUrl}?from=short`, cloaked: true, utm: { campaign: 'framed' } });
    expect(link.cloaked).toBe(true);
    const res = await visit(link.path);
    expectHtml(res, 200);
    expect(res.headers['cache-control']).toMatch(/no-store/);
    const frames = [...res.body.matchAll(/<iframe\b[^>]*\bsrc="([^"]*)"/g)];
    expect(frames).toHaveLength(1);
    const src = new URL(unescapeHtml(frames[0]![1]!));
    expect(src.origin + src.pathname).toBe(framableUrl);
    expect(src.searchParams.get('from')).toBe('short');
    expect(src.searchParams.get('utm_campaign')).toBe('framed');
    const clickId = src.searchParams.get('ltid');
    expect(clickId).toMatch(UUID);
    const found = await clicksOf(link.id, withIds([clickId!]));
    expect(found.map((c) => c.id)).toEqual([clickId]);
  });
});

describe('bots', () => {
  const preview = { title: 'Spring sale & more', description: 'Everything 20% off', image: 'https://cdn.example/spring.png' };

  it.each([['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)'], ['facebookexternalhit/1.1'], ['Twitterbot/1.0']])(
    'link preview bot %s → 200 page with the Open Graph tags, no click recorded',
    async (ua) => {
      const api = await client();
      const link = await api.create({ ...preview, url: 'https://shop.example/sale' });
      const res = await visit(link.path, { ua });
      expectHtml(res, 200);
      const meta = (property: string) => res.body.match(new RegExp(`<meta property="${property}" content="([^"]*)"`))?.[1];
      expect(meta('og:title')).toBe('Spring sale &amp; more');
      expect(meta('og:description')).toBe('Everything 20% off');
      expect(meta('og:image')).toBe('https://cdn.example/spring.png');
      await expectNoClickSoFar(link);
    },
  );

  it('a preview bot on a link without title, description or image → 302', async () => {
    const api = await client();
    const link = await api.create({ url: 'https://shop.example/bare' });
    expect(forwarded(await visit(link.path, { ua: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' })).to).toBe('https://shop.example/bare');
  });

  it('a generic bot (Googlebot) → 302, and its click is recorded with bot = true', async () => {
    const api = await client();
    const link = await api.create({ ...preview, url: 'https://shop.example/crawled' });
    const { to, clickId } = forwarded(await visit(link.path, { ua: GOOGLEBOT }));
    expect(to).toBe('https://shop.example/crawled');
    const found = await clicksOf(link.id, withIds([clickId]));
    expect(found).toEqual([expect.objectContaining({ id: clickId, bot: true })]);
  });
});

describe('HEAD', () => {
  it('same status and Location as GET, no body, no click recorded', async () => {
    const api = await client();
    const link = await api.create({ url: 'https://shop.example/head?x=1', utm: { source: 'probe' } });
    const head = await visit(link.path, { method: 'HEAD' });
    const get = await visit(link.path);
    expect(head.statusCode).toBe(get.statusCode);
    expect(head.body).toBe('');
    expect(forwarded(head).to).toBe(forwarded(get).to);
    expect(forwarded(head).to).toBe('https://shop.example/head?x=1&utm_source=probe');
    // Only the GET's click exists (after it, one more GET is the only other click).
    const getId = forwarded(get).clickId;
    const next = forwarded(await visit(link.path)).clickId;
    const found = await clicksOf(link.id, withIds([getId, next]));
    expect(found.map((c) => c.id)).toEqual([getId, next]);
  });
});

describe('GET /attribution.js', () => {
  it('is JavaScript with caching headers and an ETag; If-None-Match → 304', async () => {
    const res = await t.inject({ method: 'GET', url: '/attribution.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toMatch(/max-age=\d+/);
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^(W\/)?".+"$/);
    expect(res.body).toContain('getClickId');
    const again = await t.inject({ method: 'GET', url: '/attribution.js', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const stale = await t.inject({ method: 'GET', url: '/attribution.js', headers: { 'if-none-match': '"something-else"' } });
    expect(stale.statusCode).toBe(200);
    expect(stale.body).toBe(res.body);
  });

  it('in a page: keeps ltid from the URL in a 90-day SameSite=Lax cookie and exposes linktrail.getClickId()', async () => {
    const script = (await t.inject({ method: 'GET', url: '/attribution.js' })).body;
    const jar = new Map<string, string>();
    const written: string[] = [];
    const document = {
      get cookie() {
        return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      },
      set cookie(value: string) {
        written.push(value);
        const [pair] = value.split(';');
        const at = pair!.indexOf('=');
        jar.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
      },
    };
    const page = (search: string) => {
      const window: Record<string, unknown> = { location: { search, protocol: 'https:' } };
      vm.runInNewContext(script, { window, document, URLSearchParams });
      return window.linktrail as { getClickId(): string | null };
    };

    const landing = page('?a=1&ltid=0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b');
    expect(landing.getClickId()).toBe('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b');
    expect(written).toHaveLength(1);
    const attributes = written[0]!.split(';').map((s) => s.trim().toLowerCase());
    expect(attributes[0]).toBe('ltid=0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b');
    expect(attributes).toContain(`max-age=${90 * 24 * 3600}`);
    expect(attributes).toContain('samesite=lax');
    expect(attributes).toContain('path=/');

    // A later page without the parameter still knows the click id.
    const later = page('?page=2');
    expect(later.getClickId()).toBe('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b');
    expect(written).toHaveLength(1);
  });
});

describe('GET /api/qr caching', () => {
  it('answers with Cache-Control and an ETag; If-None-Match → 304', async () => {
    const url = '/api/qr?text=https%3A%2F%2Flt.test%2FAbcd1234&size=128';
    const res = await t.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toMatch(/max-age=\d+/);
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^(W\/)?".+"$/);
    const again = await t.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    // Another image has another ETag.
    const other = await t.inject({ method: 'GET', url: `${url}&format=svg`, headers: { 'if-none-match': etag } });
    expect(other.statusCode).toBe(200);
    expect(other.headers.etag).not.toBe(etag);
  });
});

describe('GET /attribution.js, v2', () => {
  it('stays under 3 KB gzipped, as served', async () => {
    const res = await t.inject({ method: 'GET', url: '/attribution.js' });
    expect(res.statusCode).toBe(200);
    const gzipped = gzipSync(Buffer.from(res.body)).length;
    expect(gzipped).toBeLessThan(3 * 1024);
    // No dependency: nothing imported or loaded from elsewhere.
    expect(res.body).not.toMatch(/\bimport\b|\brequire\(|<script/);
  });
});
