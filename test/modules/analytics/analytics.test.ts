/**
 * GET /api/analytics over HTTP (api.md "Analytics"; operations.md §4): click records, the
 * linkId / partnerId / startDate / endDate filters, paging and sort, bot exclusion, isolation
 * between workspaces, the scope, and groupBy (timeseries by hour/day/month, country, device,
 * browser, os, referrer, link) checked against counts computed from the raw click list and
 * from the events the test created.
 *
 * Clicks come from visiting short links; the app's clock (pinned per visit when a test needs
 * a given time) is the click time. Clicks are written in batches, in order: `settle()` tracks
 * a lead on a fresh click of a separate workspace, which makes the service write the queue up
 * to that click, so every earlier click is in the database before the test reads.
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { ANDROID, DESKTOP, IP_DE, IP_GB, IP_US, IPAD, IPHONE, UUID } from '../../helpers/visitors.js';

const FIREFOX_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0';
const GOOGLEBOT = 'Googlebot/2.1 (+http://www.google.com/bot.html)';

/** The server's clock: real time unless a test pins it. */
let pinned: number | undefined;
const clock = () => new Date(pinned ?? Date.now());
const at = (iso: string) => Date.parse(iso);

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ clock });
});

afterEach(() => {
  pinned = undefined;
});

afterAll(async () => {
  await t?.close();
});

type Body = Record<string, unknown>;

/** A click of a link without UTM values, opened as a link (not by its QR code). */
const NO_UTM = { utmSource: null, utmMedium: null, utmCampaign: null, utmTerm: null, utmContent: null, trigger: 'link' };

interface Link {
  id: string;
  shortUrl: string;
  partnerId: string | null;
}

interface Click {
  id: string;
  linkId: string;
  partnerId: string | null;
  createdAt: string;
  country: string | null;
  device: string;
  browser: string | null;
  os: string | null;
  referrer: string;
  referrerUrl: string | null;
}

interface Group {
  key: string;
  clicks: number;
  leads: number;
  sales: number;
  saleAmount: number;
  /** Per currency: these sales are all in usd (the default). */
  revenue: Record<string, number>;
  refunded: Record<string, number>;
}

const NO_MONEY = { revenue: {}, refunded: {} };
/** A group's money when all its sales are in usd and none refunded. */
const usd = (amount: number) => ({ revenue: { usd: amount }, refunded: { usd: 0 } });

interface Event {
  id: string;
  clickId: string;
  createdAt: string;
  amount?: number;
}

interface Visitor {
  ua?: string;
  ip?: string;
  referer?: string;
  /** The click time (ISO); real time when omitted. */
  time?: string;
}

/** A fresh workspace with a collection, used the way a client would. */
async function client() {
  const { ws, send, collectionId } = await workspaceWithCollection(t);

  const api = {
    ws,
    send,
    async partner(): Promise<string> {
      const res = await send('POST', '/api/partners', [{ name: 'Affiliate' }]);
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: string }[]>()[0]!.id;
    },
    async link(extra: Body = {}): Promise<Link> {
      const res = await send('POST', '/api/links', [{ url: 'https://shop.example/landing', collectionId, ...extra }]);
      expect(res.statusCode, res.body).toBe(201);
      return res.json<Link[]>()[0]!;
    },
    /** A visitor opens the short link; returns the click id the redirect hands out. */
    async click(link: Link, v: Visitor = {}): Promise<string> {
      pinned = v.time === undefined ? undefined : at(v.time);
      try {
        const res = await t.inject({
          method: 'GET',
          url: new URL(link.shortUrl).pathname,
          remoteAddress: v.ip ?? IP_GB,
          headers: { 'user-agent': v.ua ?? DESKTOP, ...(v.referer ? { referer: v.referer } : {}) },
        });
        expect(res.statusCode, res.body).toBe(302);
        const clickId = new URL(res.headers.location as string).searchParams.get('ltid');
        expect(clickId).toMatch(UUID);
        return clickId!;
      } finally {
        pinned = undefined;
      }
    },
    async lead(clickId: string, customer = 'user-1'): Promise<Event> {
      const res = await send('POST', '/api/track/lead', { clickId, eventName: 'Sign up', customerExternalId: customer, customerName: 'N' });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<Event>();
    },
    async sale(clickId: string, amount: number, customer = 'user-1'): Promise<Event> {
      const res = await send('POST', '/api/track/sale', { clickId, amount, customerExternalId: customer, customerName: 'N' });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<Event>();
    },
    analytics: (query = '', key?: string) => send('GET', `/api/analytics${query}`, undefined, key),
    /** Click records (all of them unless the query pages). */
    async clicks(query = ''): Promise<Click[]> {
      const res = await api.analytics(`?take=5000&sort=asc${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<Click[]>();
    },
    /** Groups without the names that rows keyed by a link carry (checked here, compared elsewhere). */
    async groups(query: string): Promise<Group[]> {
      const res = await api.analytics(`?take=5000${query}`);
      expect(res.statusCode, res.body).toBe(200);
      const found = res.json<(Group & { shortUrl?: string; title?: string | null; visitors?: number })[]>();
      if (query.includes('groupBy=link')) for (const g of found) expect(g.shortUrl).toMatch(/^https:\/\/lt\.test\/[A-Za-z0-9]+$/);
      // visitors: places-visitors.test.ts
      return found.map(({ shortUrl: _u, title: _t, visitors: _v, ...g }) => g);
    },
  };
  return api;
}

/** Writes every click queued so far (see the file comment). */
async function settle() {
  const sentinel = await client();
  const clickId = await sentinel.click(await sentinel.link());
  await sentinel.lead(clickId);
}

function expect400(res: LightMyRequestResponse, field?: string, code = 'invalid_query') {
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json<{ error: { en: string; ar: string; code: string } }>();
  expect(body.error.code).toBe(code);
  expect(typeof body.error.ar).toBe('string');
  if (field !== undefined) expect(body.error.en).toContain(field);
}

const ids = (list: { id: string }[]) => list.map((c) => c.id);
const byKey = (groups: Group[]) => [...groups].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

/** Groups computed from raw clicks and the created events: clicks by `clickKey`, events by `eventKey`. */
function expectedGroups(clicks: Click[], events: { leads: Event[]; sales: Event[] }, clickKey: (c: Click) => string, eventKey?: (e: Event) => string): Group[] {
  const byId = new Map(clicks.map((c) => [c.id, c]));
  const keyOfEvent = eventKey ?? ((e: Event) => clickKey(byId.get(e.clickId)!));
  const out = new Map<string, Group>();
  const group = (key: string) => {
    if (!out.has(key)) out.set(key, { key, clicks: 0, leads: 0, sales: 0, saleAmount: 0, ...NO_MONEY });
    return out.get(key)!;
  };
  for (const c of clicks) group(clickKey(c)).clicks++;
  for (const e of events.leads) group(keyOfEvent(e)).leads++;
  for (const e of events.sales) {
    const g = group(keyOfEvent(e));
    g.sales++;
    g.saleAmount += e.amount!;
    Object.assign(g, usd(g.saleAmount));
  }
  return byKey([...out.values()]);
}

const bucketOf = (interval: 'hour' | 'day' | 'month') => (iso: string) => {
  const d = new Date(iso);
  const start =
    interval === 'hour'
      ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours())
      : interval === 'day'
        ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())
        : Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  return new Date(start).toISOString();
};

/** A timeseries answer with its keys normalized to ISO instants (so any ISO 8601 spelling of the bucket start passes). */
const normalized = (groups: Group[]) => groups.map((g) => ({ ...g, key: new Date(Date.parse(g.key)).toISOString() }));

describe('GET /api/analytics: click records', () => {
  it('one record per click with its link, partner, time, country, device, browser, os and referrer', async () => {
    const api = await client();
    const partnerId = await api.partner();
    const withPartner = await api.link({ partnerId });
    const plain = await api.link();
    const c1 = await api.click(withPartner, {
      ua: IPHONE,
      ip: IP_GB,
      referer: 'https://news.example.com/story?id=1',
      time: '2025-05-01T10:00:00.000Z',
    });
    const c2 = await api.click(plain, { ua: DESKTOP, ip: IP_DE, time: '2025-05-01T10:00:01.500Z' });
    const c3 = await api.click(plain, { ua: IPAD, ip: IP_US, referer: 'https://social.example/p/1', time: '2025-05-01T10:00:02.000Z' });
    const c4 = await api.click(withPartner, { ua: ANDROID, ip: IP_GB, time: '2025-05-01T10:00:03.000Z' });
    await settle();
    const list = await api.clicks();
    expect(list.map((c) => Object.keys(c).sort())).toEqual(
      Array(4).fill([
        'browser',
        'country',
        'createdAt',
        'device',
        'id',
        'linkId',
        'os',
        'partnerId',
        'referrer',
        'referrerUrl',
        'trigger',
        'utmCampaign',
        'utmContent',
        'utmMedium',
        'utmSource',
        'utmTerm',
      ]),
    );
    expect(list.map((c) => ({ ...c, createdAt: new Date(c.createdAt).toISOString() }))).toEqual([
      {
        id: c1,
        linkId: withPartner.id,
        partnerId,
        createdAt: '2025-05-01T10:00:00.000Z',
        country: 'GB',
        device: 'mobile',
        browser: 'Mobile Safari',
        os: 'iOS',
        referrer: 'news.example.com',
        referrerUrl: 'https://news.example.com/story?id=1',
        ...NO_UTM,
      },
      {
        id: c2,
        linkId: plain.id,
        partnerId: null,
        createdAt: '2025-05-01T10:00:01.500Z',
        country: 'DE',
        device: 'desktop',
        browser: 'Chrome',
        os: 'Windows',
        referrer: '(direct)',
        referrerUrl: null,
        ...NO_UTM,
      },
      {
        id: c3,
        linkId: plain.id,
        partnerId: null,
        createdAt: '2025-05-01T10:00:02.000Z',
        country: 'US',
        device: 'tablet',
        browser: 'Mobile Safari',
        os: 'iOS',
        referrer: 'social.example',
        referrerUrl: 'https://social.example/p/1',
        ...NO_UTM,
      },
      {
        id: c4,
        linkId: withPartner.id,
        partnerId,
        createdAt: '2025-05-01T10:00:03.000Z',
        country: 'GB',
        device: 'mobile',
        browser: 'Chrome',
        os: 'Android',
        referrer: '(direct)',
        referrerUrl: null,
        ...NO_UTM,
      },
    ]);
  });

  it('bot clicks are not returned and not counted by any groupBy', async () => {
    const api = await client();
    const link = await api.link();
    const human1 = await api.click(link, { ua: DESKTOP });
    await api.click(link, { ua: GOOGLEBOT });
    await api.click(link, { ua: 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)' });
    const human2 = await api.click(link, { ua: IPHONE });
    await settle();
    expect(ids(await api.clicks())).toEqual([human1, human2]);
    for (const groupBy of ['link', 'timeseries', 'browser', 'os', 'device', 'country', 'referrer']) {
      const groups = await api.groups(`&groupBy=${groupBy}`);
      expect(
        groups.reduce((n, g) => n + g.clicks, 0),
        groupBy,
      ).toBe(2);
    }
    expect((await api.groups('&groupBy=browser')).map((g) => g.key).sort()).toEqual(['Chrome', 'Mobile Safari']);
  });

  it('linkId and partnerId filter the clicks; both given must both match', async () => {
    const api = await client();
    const [p1, p2] = [await api.partner(), await api.partner()];
    const l1 = await api.link({ partnerId: p1 });
    const l2 = await api.link({ partnerId: p2 });
    const l3 = await api.link({ partnerId: p1 });
    const l4 = await api.link();
    const c = {
      l1a: await api.click(l1),
      l2: await api.click(l2),
      l1b: await api.click(l1),
      l3: await api.click(l3),
      l4: await api.click(l4),
    };
    await settle();
    expect(ids(await api.clicks())).toEqual([c.l1a, c.l2, c.l1b, c.l3, c.l4]);
    expect(ids(await api.clicks(`&linkId=${l1.id}`))).toEqual([c.l1a, c.l1b]);
    expect(ids(await api.clicks(`&linkId=${l4.id}`))).toEqual([c.l4]);
    expect(ids(await api.clicks(`&partnerId=${p1}`))).toEqual([c.l1a, c.l1b, c.l3]);
    expect(ids(await api.clicks(`&partnerId=${p2}`))).toEqual([c.l2]);
    expect(ids(await api.clicks(`&linkId=${l1.id}&partnerId=${p1}`))).toEqual([c.l1a, c.l1b]);
    expect(await api.clicks(`&linkId=${l1.id}&partnerId=${p2}`)).toEqual([]);
    expect(await api.clicks(`&linkId=${l4.id}&partnerId=${p1}`)).toEqual([]);
    expect(await api.clicks(`&linkId=${randomUUID()}`)).toEqual([]);
    expect(await api.clicks(`&partnerId=${randomUUID()}`)).toEqual([]);
    expect400(await api.analytics('?linkId=not-a-uuid'), 'linkId');
    expect400(await api.analytics('?partnerId=123'), 'partnerId');
  });

  it('breakdown filters (extension) narrow the click list; bad values are a 400 naming the parameter', async () => {
    const api = await client();
    const l1 = await api.link();
    const l2 = await api.link();
    const c = {
      gb: await api.click(l1, { ua: IPHONE, ip: IP_GB, referer: 'https://news.example.com/a' }),
      de: await api.click(l1, { ua: DESKTOP, ip: IP_DE }),
      us: await api.click(l2, { ua: ANDROID, ip: IP_US, referer: 'https://social.example/p' }),
    };
    await settle();
    expect(ids(await api.clicks('&country=GB'))).toEqual([c.gb]);
    expect(ids(await api.clicks('&continent=EU'))).toEqual([c.gb, c.de]);
    expect(ids(await api.clicks('&continent=EU&device=desktop'))).toEqual([c.de]);
    expect(ids(await api.clicks('&referrer=(direct)'))).toEqual([c.de]);
    expect(ids(await api.clicks(`&referrer=news.example.com&linkId=${l1.id}`))).toEqual([c.gb]);
    expect(ids(await api.clicks('&trigger=link'))).toEqual([c.gb, c.de, c.us]);
    expect(await api.clicks('&trigger=qr')).toEqual([]);
    expect(await api.clicks('&country=FR')).toEqual([]);
    expect(await api.clicks(`&collectionId=${randomUUID()}`)).toEqual([]);
    for (const [param, value] of [
      ['trigger', 'email'],
      ['continent', 'Europe'],
      ['collectionId', 'x'],
      ['tagId', '12'],
      ['country', ''],
      ['utmSource', 'x'.repeat(2049)],
    ] as const)
      expect400(await api.analytics(`?${param}=${encodeURIComponent(value)}`), param);
    // Another workspace's filter values select nothing of this one.
    const other = await client();
    await other.click(await other.link(), { ua: DESKTOP, ip: IP_GB });
    await settle();
    expect(ids(await api.clicks('&country=GB'))).toEqual([c.gb]);
  });

  it('startDate <= createdAt <= endDate, both inclusive; a date alone means the whole UTC day', async () => {
    const api = await client();
    const link = await api.link();
    const c1 = await api.click(link, { time: '2024-03-10T00:00:00.000Z' });
    const c2 = await api.click(link, { time: '2024-03-10T23:59:59.999Z' });
    const c3 = await api.click(link, { time: '2024-03-11T00:00:00.000Z' });
    const c4 = await api.click(link, { time: '2024-03-11T12:00:00.000Z' });
    const c0 = await api.click(link, { time: '2024-03-09T23:59:59.999Z' });
    await settle();
    const q = async (query: string) => ids(await api.clicks(query));
    expect(await q('')).toEqual([c0, c1, c2, c3, c4]);
    expect(await q('&startDate=2024-03-10&endDate=2024-03-10')).toEqual([c1, c2]);
    expect(await q('&endDate=2024-03-10')).toEqual([c0, c1, c2]);
    expect(await q('&startDate=2024-03-11')).toEqual([c3, c4]);
    expect(await q('&startDate=2024-03-10T23:59:59.999Z&endDate=2024-03-11T00:00:00.000Z')).toEqual([c2, c3]);
    expect(await q('&endDate=2024-03-10T23:59:59.998Z')).toEqual([c0, c1]);
    expect(await q('&startDate=2024-03-11T12:00:00Z&endDate=2024-03-11T12:00:00Z')).toEqual([c4]);
    // Offsets are honoured: 01:00+01:00 is 00:00Z.
    expect(await q('&startDate=2024-03-11T01:00:00%2B01:00')).toEqual([c3, c4]);
    expect(await q('&startDate=2024-03-12')).toEqual([]);
    expect(await q('&endDate=2024-03-09')).toEqual([c0]);
    expect(await q('&endDate=2024-03-08')).toEqual([]);
  });

  it('invalid dates and a startDate after the endDate are a 400', async () => {
    const api = await client();
    for (const [field, value] of [
      ['startDate', '2024-02-30'],
      ['startDate', '2024-13-01'],
      ['startDate', 'yesterday'],
      ['endDate', '2024-01-01T25:00:00Z'],
      ['endDate', '1710000000'],
      ['endDate', '2024-1-5'],
      ['startDate', ''],
    ] as const) {
      expect400(await api.analytics(`?${field}=${encodeURIComponent(value)}`), field);
      expect400(await api.analytics(`?groupBy=timeseries&${field}=${encodeURIComponent(value)}`), field);
    }
    expect400(await api.analytics('?startDate=2024-03-11&endDate=2024-03-10'));
    expect400(await api.analytics('?startDate=2024-03-10T00:00:00.001Z&endDate=2024-03-10T00:00:00.000Z'));
    expect400(await api.analytics('?groupBy=link&startDate=2024-03-11&endDate=2024-03-10'));
    // Equal bounds are fine.
    expect((await api.analytics('?startDate=2024-03-10T00:00:00Z&endDate=2024-03-10T00:00:00Z')).statusCode).toBe(200);
  });

  it('take, skip and sort page through every click exactly once; ties keep insertion order', async () => {
    const api = await client();
    const link = await api.link();
    const made: string[] = [];
    for (const time of ['2024-01-01T00:00:00Z', '2024-01-02T00:00:00Z', '2024-01-02T00:00:00Z', '2024-01-02T00:00:00Z', '2024-01-03T00:00:00Z']) {
      made.push(await api.click(link, { time }));
    }
    made.push(await api.click(link, { time: '2024-01-04T00:00:00Z' }), await api.click(link, { time: '2024-01-05T00:00:00Z' }));
    await settle();
    const pages: string[] = [];
    for (let skip = 0; skip < made.length + 2; skip += 3) {
      const res = await api.analytics(`?sort=asc&take=3&skip=${skip}`);
      expect(res.statusCode, res.body).toBe(200);
      pages.push(...ids(res.json<Click[]>()));
    }
    expect(pages).toEqual(made);
    // Default sort is newest first; default take 50.
    const res = await api.analytics('');
    expect(ids(res.json<Click[]>())).toEqual([...made].reverse());
    expect(ids((await api.analytics('?take=2&skip=1')).json<Click[]>())).toEqual([made[5], made[4]]);
    for (const q of ['?take=0', '?take=5001', '?take=x', '?skip=-1', '?sort=newest']) expect400(await api.analytics(q));
  });

  it('needs analyticsRead', async () => {
    const api = await client();
    const { key: without } = await api.ws.newKey(['linksRead', 'conversionsWrite', 'customersRead']);
    const denied = await api.analytics('', without);
    expect(denied.statusCode, denied.body).toBe(403);
    expect(denied.json()).toMatchObject({ error: { code: 'missing_scopes' }, missingScopes: ['analyticsRead'] });
    const { key: only } = await api.ws.newKey(['analyticsRead']);
    expect((await api.analytics('?groupBy=link', only)).statusCode).toBe(200);
  });

  it('is invisible across workspaces, by list, filter or group', async () => {
    const a = await client();
    const b = await client();
    const partner = await a.partner();
    const link = await a.link({ partnerId: partner });
    const clickA = await a.click(link);
    await a.lead(clickA);
    await a.sale(clickA, 700);
    const linkB = await b.link();
    const clickB = await b.click(linkB);
    await settle();
    expect(ids(await a.clicks())).toEqual([clickA]);
    expect(ids(await b.clicks())).toEqual([clickB]);
    expect(await b.clicks(`&linkId=${link.id}`)).toEqual([]);
    expect(await b.clicks(`&partnerId=${partner}`)).toEqual([]);
    expect(await b.groups('&groupBy=link')).toEqual([{ key: linkB.id, clicks: 1, leads: 0, sales: 0, saleAmount: 0, ...NO_MONEY }]);
    expect(await b.groups(`&groupBy=link&linkId=${link.id}`)).toEqual([]);
    expect(await b.groups(`&groupBy=country&partnerId=${partner}`)).toEqual([]);
    expect(await a.groups('&groupBy=link')).toEqual([{ key: link.id, clicks: 1, leads: 1, sales: 1, saleAmount: 700, ...usd(700) }]);
  });
});

describe('GET /api/analytics: groupBy', () => {
  /** Two links (one with a partner), human clicks of varied visitors and times, a bot, leads and sales. */
  async function scenario() {
    const api = await client();
    const partnerId = await api.partner();
    const l1 = await api.link({ partnerId });
    const l2 = await api.link();
    const c = {
      a: await api.click(l1, { ua: IPHONE, ip: IP_GB, referer: 'https://news.example.com/a', time: '2024-01-15T10:20:00Z' }),
      b: await api.click(l1, { ua: DESKTOP, ip: IP_DE, time: '2024-01-15T10:50:00Z' }),
      c: await api.click(l2, { ua: ANDROID, ip: IP_US, referer: 'https://social.example/p', time: '2024-01-15T13:05:00Z' }),
      d: await api.click(l2, { ua: IPAD, ip: IP_GB, time: '2024-01-16T00:00:00Z' }),
      e: await api.click(l1, { ua: FIREFOX_MAC, ip: IP_DE, referer: 'https://news.example.com/b', time: '2024-02-01T09:00:00Z' }),
      f: await api.click(l2, { ua: DESKTOP, ip: IP_GB, referer: 'https://news.example.com/c', time: '2024-02-29T23:59:59Z' }),
    };
    await api.click(l1, { ua: GOOGLEBOT, ip: IP_US, time: '2024-01-15T10:30:00Z' });
    const leads = [await api.lead(c.a, 'u1'), await api.lead(c.c, 'u2'), await api.lead(c.a, 'u3'), await api.lead(c.e, 'u4')];
    const sales = [await api.sale(c.a, 1500, 'u1'), await api.sale(c.d, 250, 'u5'), await api.sale(c.c, 99, 'u2'), await api.sale(c.a, 1, 'u1')];
    await settle();
    const clicks = await api.clicks();
    expect(ids(clicks)).toEqual(Object.values(c));
    return { api, partnerId, l1, l2, c, clicks, events: { leads, sales } };
  }

  it('country, device, browser, os, referrer and link match the raw clicks and the created events', async () => {
    const { api, clicks, events } = await scenario();
    const dimensions: Record<string, (c: Click) => string> = {
      country: (c) => c.country!,
      device: (c) => c.device,
      browser: (c) => c.browser!,
      os: (c) => c.os!,
      referrer: (c) => c.referrer,
      link: (c) => c.linkId,
    };
    for (const [groupBy, keyOf] of Object.entries(dimensions)) {
      const groups = await api.groups(`&groupBy=${groupBy}`);
      expect(
        groups.map((g) => Object.keys(g).sort()),
        groupBy,
      ).toEqual(groups.map(() => ['clicks', 'key', 'leads', 'refunded', 'revenue', 'saleAmount', 'sales']));
      expect(byKey(groups), groupBy).toEqual(expectedGroups(clicks, events, keyOf));
    }
    // A few values spelled out, so the expectation above cannot agree with a wrong click list.
    expect(byKey(await api.groups('&groupBy=country'))).toEqual([
      { key: 'DE', clicks: 2, leads: 1, sales: 0, saleAmount: 0, ...NO_MONEY },
      { key: 'GB', clicks: 3, leads: 2, sales: 3, saleAmount: 1751, ...usd(1751) },
      { key: 'US', clicks: 1, leads: 1, sales: 1, saleAmount: 99, ...usd(99) },
    ]);
    expect(byKey(await api.groups('&groupBy=referrer'))).toEqual([
      { key: '(direct)', clicks: 2, leads: 0, sales: 1, saleAmount: 250, ...usd(250) },
      { key: 'news.example.com', clicks: 3, leads: 3, sales: 2, saleAmount: 1501, ...usd(1501) },
      { key: 'social.example', clicks: 1, leads: 1, sales: 1, saleAmount: 99, ...usd(99) },
    ]);
  });

  it('linkId and partnerId narrow the groups to the matching clicks and their events', async () => {
    const { api, partnerId, l1, l2, clicks, events } = await scenario();
    const only = (keep: (c: Click) => boolean) => {
      const kept = clicks.filter(keep);
      const has = (e: Event) => kept.some((c) => c.id === e.clickId);
      return { kept, events: { leads: events.leads.filter(has), sales: events.sales.filter(has) } };
    };
    const p = only((c) => c.partnerId === partnerId);
    expect(byKey(await api.groups(`&groupBy=device&partnerId=${partnerId}`))).toEqual(expectedGroups(p.kept, p.events, (c) => c.device));
    const l = only((c) => c.linkId === l2.id);
    expect(byKey(await api.groups(`&groupBy=os&linkId=${l2.id}`))).toEqual(expectedGroups(l.kept, l.events, (c) => c.os!));
    expect(await api.groups(`&groupBy=link&linkId=${l1.id}&partnerId=${partnerId}`)).toEqual(expectedGroups(p.kept, p.events, (c) => c.linkId));
    expect(await api.groups(`&groupBy=link&linkId=${l2.id}&partnerId=${partnerId}`)).toEqual([]);
  });

  it('timeseries by hour, day and month matches the raw clicks and the events bucketed by their own time', async () => {
    const { api, clicks, events } = await scenario();
    for (const interval of ['hour', 'day', 'month'] as const) {
      const bucket = bucketOf(interval);
      const expected = expectedGroups(
        clicks,
        events,
        (c) => bucket(c.createdAt),
        (e) => bucket(e.createdAt),
      );
      const asc = normalized(await api.groups(`&groupBy=timeseries&interval=${interval}&sort=asc`));
      expect(asc, interval).toEqual(expected);
      const desc = normalized(await api.groups(`&groupBy=timeseries&interval=${interval}&sort=desc`));
      expect(desc, interval).toEqual([...expected].reverse());
    }
    // The default interval is the day; buckets start at the UTC day.
    const days = normalized(await api.groups('&groupBy=timeseries&sort=asc'));
    expect(days.filter((g) => g.key.startsWith('2024')).map((g) => [g.key, g.clicks])).toEqual([
      ['2024-01-15T00:00:00.000Z', 3],
      ['2024-01-16T00:00:00.000Z', 1],
      ['2024-02-01T00:00:00.000Z', 1],
      ['2024-02-29T00:00:00.000Z', 1],
    ]);
    // take and skip page through the buckets in order.
    const hours = normalized(await api.groups('&groupBy=timeseries&interval=hour&sort=asc'));
    const paged = [
      ...normalized((await api.analytics('?groupBy=timeseries&interval=hour&sort=asc&take=2')).json<Group[]>()),
      ...normalized((await api.analytics('?groupBy=timeseries&interval=hour&sort=asc&take=2&skip=2')).json<Group[]>()),
      ...normalized((await api.analytics('?groupBy=timeseries&interval=hour&sort=asc&take=5000&skip=4')).json<Group[]>()),
    ];
    expect(paged.map(({ visitors: _v, ...g }: Group & { visitors?: number }) => g)).toEqual(hours);
  });

  it('startDate and endDate limit clicks and events to the period', async () => {
    const { api, clicks, events } = await scenario();
    const inPeriod = (from: number, to: number) => (iso: string) => Date.parse(iso) >= from && Date.parse(iso) <= to;
    const check = async (query: string, from: number, to: number) => {
      const keep = inPeriod(from, to);
      const kept = clicks.filter((c) => keep(c.createdAt));
      const ev = { leads: events.leads.filter((e) => keep(e.createdAt)), sales: events.sales.filter((e) => keep(e.createdAt)) };
      expect(ids(await api.clicks(query)), query).toEqual(ids(kept));
      // An event counts by its own time; its group is its click's, wherever that click falls.
      const linkOf = (e: Event) => clicks.find((c) => c.id === e.clickId)!.linkId;
      expect(byKey(await api.groups(`&groupBy=link${query}`)), query).toEqual(expectedGroups(kept, ev, (c) => c.linkId, linkOf));
      const days = bucketOf('day');
      expect(normalized(await api.groups(`&groupBy=timeseries&sort=asc${query}`)), query).toEqual(
        expectedGroups(
          kept,
          ev,
          (c) => days(c.createdAt),
          (e) => days(e.createdAt),
        ),
      );
    };
    // January 2024: clicks only (the events happen now).
    await check('&startDate=2024-01-01&endDate=2024-01-31', at('2024-01-01T00:00:00Z'), at('2024-01-31T23:59:59.999Z'));
    // One day by date-only bounds.
    await check('&startDate=2024-01-15&endDate=2024-01-15', at('2024-01-15T00:00:00Z'), at('2024-01-15T23:59:59.999Z'));
    // From March 2024 on: no clicks, every event.
    const far = new Date(Date.now() + 86_400_000).toISOString();
    await check(`&startDate=2024-03-01&endDate=${encodeURIComponent(far)}`, at('2024-03-01T00:00:00Z'), Date.parse(far));
    // Everything.
    await check(`&startDate=2024-01-15T10:20:00Z&endDate=${encodeURIComponent(far)}`, at('2024-01-15T10:20:00Z'), Date.parse(far));
  });

  it('interval needs groupBy=timeseries; unknown groupBy or interval values are a 400', async () => {
    const api = await client();
    expect400(await api.analytics('?interval=day'), 'interval');
    expect400(await api.analytics('?groupBy=country&interval=hour'), 'interval');
    expect400(await api.analytics('?groupBy=week'), 'groupBy');
    expect400(await api.analytics('?groupBy=timeseries&interval=week'), 'interval');
    expect400(await api.analytics('?groupBy=timeseries&interval=minute'), 'interval');
    expect((await api.analytics('?groupBy=timeseries&interval=month')).statusCode).toBe(200);
  });
});
