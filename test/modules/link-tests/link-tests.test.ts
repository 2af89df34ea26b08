/**
 * A/B tests of destinations through HTTP (operations.md §20): the link's `test` field (its
 * rules, the plan gate, its history), the redirect's split at api.md's step 5 (weighted,
 * sticky by cookie and by the visitor hash, after device and geo, never for bots, HEAD or
 * prefetches, stopped at endsAt), the clicks' variant in analytics, the figures of GET
 * /api/links/{id}/test, and the completion (at endsAt by the job, once across two instances,
 * or now by POST …/complete) with link.updated. Runs on PGlite and on PostgreSQL with Redis.
 */
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { bearer, onPostgres, startTestApp, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';
import { ANDROID, DESKTOP, IP_DE, IP_US, IPHONE, UUID } from '../../helpers/visitors.js';
import { within } from '../../helpers/wait.js';
import { probabilityBBeatsA } from '../../../src/modules/link-tests/beta.js';
import { endpoint, eventsOf } from '../webhooks/emit-helpers.js';

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

/** The server's clock: the real time when the file starts, held there (a second instance runs two hours on). */
const nowMs = Date.now();
const clock = () => new Date(nowMs);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ clock, env: { COUNTRY_HEADER: 'cf-ipcountry' } });
});
afterAll(() => t?.close());

interface Link {
  id: string;
  url: string;
  shortUrl: string;
  shortId: string;
  test: { variants: { url: string; weight: number }[]; endsAt: string; metric: string; currency: string | null; autoApply: boolean } | null;
  testId: string | null;
}

interface Result {
  testId: string;
  status: 'running' | 'completed';
  endsAt: string;
  metric: string;
  variants: {
    url: string;
    weight: number;
    clicks: number;
    conversions: number;
    conversionRate: number;
    revenue: Record<string, number>;
    probabilityBest: number | null;
  }[];
  winner: number | null;
  days: { day: string; clicks: number[]; conversions: number[] }[];
}

const A = 'https://shop.example/a';
const B = 'https://shop.example/b';
const C = 'https://shop.example/c';
const D = 'https://shop.example/d';
const HOUR = 3_600_000;
const inHours = (h: number) => new Date(nowMs + h * HOUR).toISOString();
const testOf = (over: Record<string, unknown> = {}) => ({
  variants: [
    { url: A, weight: 50 },
    { url: B, weight: 50 },
  ],
  endsAt: inHours(24),
  metric: 'leads',
  ...over,
});

async function client(app: TestApp = t, plan?: WorkspaceFixture['plan']) {
  const ws = await app.workspace({ rateLimitPerMinute: 1_000_000, ...(plan ? { plan } : {}) });
  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, on: TestApp = app) =>
    on.inject({
      method,
      url,
      headers: { ...bearer(ws.key), 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const col = await send('POST', '/api/collections', [{ name: 'Tests' }]);
  expect(col.statusCode, col.body).toBe(201);
  const collectionId = col.json<{ id: string }[]>()[0]!.id;
  return {
    ws,
    send,
    collectionId,
    async create(extra: Record<string, unknown> = {}): Promise<Link> {
      const res = await send('POST', '/api/links', [{ url: 'https://shop.example/original', collectionId, ...extra }]);
      expect(res.statusCode, res.body).toBe(201);
      return res.json<Link[]>()[0]!;
    },
    async update(item: Record<string, unknown>): Promise<Link> {
      const res = await send('PUT', '/api/links', [item]);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<Link[]>()[0]!;
    },
    async link(id: string): Promise<Link> {
      return ok<Link[]>(await send('GET', `/api/links?id=${id}`), 200)[0]!;
    },
    async result(id: string): Promise<Result> {
      return ok<Result>(await send('GET', `/api/links/${id}/test`), 200);
    },
  };
}

function ok<T>(res: LightMyRequestResponse, status: number): T {
  expect(res.statusCode, res.body).toBe(status);
  return res.json<T>();
}

function expectField(res: LightMyRequestResponse, field: string, reasonCode?: string) {
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json<{ error: { code: string; en: string; ar: string }; field: string; reason: string }>();
  expect(body.error.code).toBe('invalid_field');
  expect(body.field).toBe(field);
  if (reasonCode) expect(body.reason).toBe(reasonCode);
  expect(body.error.ar).toMatch(/[\u0600-\u06ff]/);
  return body.error;
}

/** One visit of the short link: the Location, the Set-Cookie, the status. */
async function visit(
  link: Link,
  o: { ip?: string; ua?: string; cookie?: string; method?: 'GET' | 'HEAD'; headers?: Record<string, string>; app?: TestApp } = {},
) {
  const res = await (o.app ?? t).inject({
    method: o.method ?? 'GET',
    url: new URL(link.shortUrl).pathname,
    remoteAddress: o.ip ?? '203.0.113.7',
    headers: { 'user-agent': o.ua ?? DESKTOP, ...(o.cookie ? { cookie: o.cookie } : {}), ...o.headers },
  });
  expect(res.statusCode, res.body).toBe(302);
  const location = new URL(res.headers.location as string);
  const setCookie = res.headers['set-cookie'] as string | undefined;
  return { to: `${location.origin}${location.pathname}`, clickId: location.searchParams.get('ltid'), setCookie };
}

/** groupBy=variant of a link, polled until its clicks reach `total` (clicks are written in batches). */
async function variantCounts(c: Awaited<ReturnType<typeof client>>, linkId: string, total: number): Promise<Map<string, number>> {
  let counts = new Map<string, number>();
  const reached = await within(20_000, async () => {
    const res = await c.send('GET', `/api/analytics?linkId=${linkId}&groupBy=variant&take=10`);
    counts = new Map(ok<{ key: string; clicks: number }[]>(res, 200).map((g) => [g.key, g.clicks]));
    return [...counts.values()].reduce((s, n) => s + n, 0) >= total;
  });
  expect(reached, JSON.stringify([...counts])).toBe(true);
  return counts;
}

describe('the test field', () => {
  test('a link carries its test and testId; the same variants keep the test, other variants start a new one, null ends it', async () => {
    const c = await client();
    const made = await c.create({ test: testOf({ metric: 'revenue', currency: 'EUR' }) });
    expect(made.testId).toMatch(UUID);
    expect(made.test).toEqual({ ...testOf({ metric: 'revenue', currency: 'eur' }), endsAt: new Date(made.test!.endsAt).toISOString(), autoApply: true });
    expect(made.url).toBe('https://shop.example/original');

    // The same variants: the same test, its end and autoApply changed in place.
    const moved = await c.update({ id: made.id, test: { ...testOf({ metric: 'revenue', currency: 'eur', endsAt: inHours(48) }), autoApply: false } });
    expect(moved.testId).toBe(made.testId);
    expect(moved.test!.autoApply).toBe(false);
    // Omitted: kept.
    expect((await c.update({ id: made.id, title: 'Spring' })).testId).toBe(made.testId);

    // Other weights: the running test ends without a winner, a new one starts.
    const other = await c.update({
      id: made.id,
      test: testOf({
        variants: [
          { url: A, weight: 30 },
          { url: B, weight: 70 },
        ],
      }),
    });
    expect(other.testId).toMatch(UUID);
    expect(other.testId).not.toBe(made.testId);
    const history = await rows<{ id: string; status: string; winner: number | null }>(
      t.database.db,
      sql`SELECT id, status, winner FROM link_tests WHERE link_id = ${made.id}::uuid ORDER BY seq`,
    );
    expect(history).toEqual([
      { id: made.testId, status: 'completed', winner: null },
      { id: other.testId, status: 'running', winner: null },
    ]);
    expect((await c.result(made.id)).testId).toBe(other.testId);

    // null: ended without a winner, the url kept; the last test still answers, completed.
    const ended = await c.update({ id: made.id, test: null });
    expect(ended.test).toBeNull();
    expect(ended.testId).toBeNull();
    expect(ended.url).toBe('https://shop.example/original');
    const last = await c.result(made.id);
    expect(last).toMatchObject({ testId: other.testId, status: 'completed', winner: null });
    // Nothing running: POST …/complete answers 409; a link that never had a test 404.
    const again = await c.send('POST', `/api/links/${made.id}/test/complete`, {});
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json().error.code).toBe('link_test_not_running');
    const never = await c.create();
    expect((await c.send('GET', `/api/links/${never.id}/test`)).json().error.code).toBe('link_test_none');
  });

  test.each([
    ['one variant', { variants: [{ url: A, weight: 100 }] }, '[0].test.variants'],
    [
      'five variants',
      {
        variants: [
          { url: A, weight: 20 },
          { url: B, weight: 20 },
          { url: C, weight: 20 },
          { url: D, weight: 20 },
          { url: 'https://shop.example/e', weight: 20 },
        ],
      },
      '[0].test.variants',
    ],
    [
      'an http url',
      {
        variants: [
          { url: 'http://shop.example/a', weight: 50 },
          { url: B, weight: 50 },
        ],
      },
      '[0].test.variants[0].url',
    ],
    [
      'a weight below 10',
      {
        variants: [
          { url: A, weight: 90 },
          { url: B, weight: 5 },
        ],
      },
      '[0].test.variants[1].weight',
    ],
    [
      'a weight that is no integer',
      {
        variants: [
          { url: A, weight: 49.5 },
          { url: B, weight: 50.5 },
        ],
      },
      '[0].test.variants[0].weight',
    ],
    [
      'weights not adding up to 100',
      {
        variants: [
          { url: A, weight: 50 },
          { url: B, weight: 40 },
        ],
      },
      '[0].test.variants',
      'weights_sum',
    ],
    ['an end in the past', { endsAt: new Date(Date.now() - HOUR).toISOString() }, '[0].test.endsAt', 'in_past'],
    ['an end over 90 days ahead', { endsAt: new Date(Date.now() + 91 * 24 * HOUR).toISOString() }, '[0].test.endsAt', 'too_far'],
    ['an unknown metric', { metric: 'clicks' }, '[0].test.metric'],
    ['revenue without currency', { metric: 'revenue' }, '[0].test.currency', 'required'],
    ['revenue in no currency', { metric: 'revenue', currency: 'xyz' }, '[0].test.currency'],
  ])('a test with %s is refused, naming the field', async (_name, over, field, reasonCode?: string) => {
    const c = await client();
    const res = await c.send('POST', '/api/links', [{ url: 'https://shop.example/x', collectionId: c.collectionId, test: testOf(over) }]);
    expectField(res, field, reasonCode);
  });

  test('a bulk write is all-or-nothing and names the item and field', async () => {
    const c = await client();
    const good = { url: 'https://shop.example/1', collectionId: c.collectionId, test: testOf() };
    const bad = {
      url: 'https://shop.example/3',
      collectionId: c.collectionId,
      test: testOf({
        variants: [
          { url: A, weight: 90 },
          { url: B, weight: 9 },
        ],
      }),
    };
    const res = await c.send('POST', '/api/links', [good, good, bad]);
    expectField(res, '[2].test.variants[1].weight');
    expect(ok<Link[]>(await c.send('GET', '/api/links?take=10'), 200)).toEqual([]);
    // Unknown properties of the test are ignored, not refused.
    const [made] = ok<Link[]>(await c.send('POST', '/api/links', [{ ...good, test: { ...testOf(), colour: 'red' } }]), 201);
    expect(made!.test).not.toHaveProperty('colour');
  });

  test('on the free plan a test is refused naming the feature, on an update too; pro has it', async () => {
    const free = await client(t, 'free');
    const created = await free.send('POST', '/api/links', [{ url: 'https://shop.example/x', collectionId: free.collectionId, test: testOf() }]);
    const e = expectField(created, '[0].test', 'plan_feature');
    expect(e.en).toContain('A/B tests');
    expect(e.ar).toContain('A/B');
    const plain = await free.create();
    expectField(await free.send('PUT', '/api/links', [{ id: plain.id, test: testOf() }]), '[0].test', 'plan_feature');
    // Ending one is always allowed (after a downgrade).
    expect((await free.update({ id: plain.id, test: null })).test).toBeNull();
    const pro = await client(t, 'pro');
    expect((await pro.create({ test: testOf() })).testId).toMatch(UUID);
  });
});

describe('the split', () => {
  test('thousands of distinct visitors split by weight (chi-square, failing less than once in 10^6 runs)', async () => {
    const c = await client();
    const weights = [10, 20, 30, 40];
    const urls = [A, B, C, D];
    const link = await c.create({ test: testOf({ variants: urls.map((url, i) => ({ url, weight: weights[i] })) }) });
    const N = 4000;
    const seen = [0, 0, 0, 0];
    for (let i = 0; i < N; i++) {
      const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      const { to, setCookie } = await visit(link, { ip, ua: `${DESKTOP} visitor/${i}` });
      const index = urls.indexOf(to);
      expect(index, to).toBeGreaterThanOrEqual(0);
      expect(setCookie).toContain(`lt_t_${link.shortId}=${link.testId}.${index};`);
      seen[index]!++;
    }
    const chiSquare = seen.reduce((s, o, i) => s + (o - (N * weights[i]!) / 100) ** 2 / ((N * weights[i]!) / 100), 0);
    const critical = chiSquareCritical(weights.length - 1, 1e-6);
    expect(critical).toBeCloseTo(30.6648, 3);
    expect(chiSquare, `observed ${seen.join(', ')}`).toBeLessThan(critical);
    // Every one of them is a click of its variant.
    const counts = await variantCounts(c, link.id, N);
    expect([0, 1, 2, 3].map((i) => counts.get(String(i)) ?? 0)).toEqual(seen);
  }, 120_000);

  test('a visitor keeps the variant: by the cookie while its test id matches, and without cookies by the hash', async () => {
    const c = await client();
    const link = await c.create({ test: testOf() });
    const first = await visit(link, { ip: '198.51.100.4' });
    const index = [A, B].indexOf(first.to);
    const cookie = first.setCookie!;
    expect(cookie).toMatch(
      new RegExp(`^lt_t_${link.shortId}=${link.testId}\\.${index}; Path=${new URL(link.shortUrl).pathname}; Max-Age=604800; HttpOnly; SameSite=Lax; Secure$`),
    );
    // Cookieless: the same address and user agent land on the same variant each time.
    for (let i = 0; i < 5; i++) expect((await visit(link, { ip: '198.51.100.4' })).to).toBe(first.to);
    // The cookie wins over the hash (another address, another agent), and is not sent again.
    const other = 1 - index;
    const kept = await visit(link, { ip: '192.0.2.99', ua: `${DESKTOP} other`, cookie: `theme=dark; lt_t_${link.shortId}=${link.testId}.${other}; x=1` });
    expect(kept.to).toBe([A, B][other]);
    expect(kept.setCookie).toBeUndefined();
    // A cookie of another test id, another link, or a variant the test has not: the hash decides, and a new cookie is sent.
    for (const stale of [
      `lt_t_${link.shortId}=00000000-0000-4000-8000-000000000000.${other}`,
      `lt_t_Other123=${link.testId}.${other}`,
      `lt_t_${link.shortId}=${link.testId}.7`,
    ]) {
      const hashed = await visit(link, { ip: '198.51.100.4', cookie: stale });
      expect(hashed.to).toBe(first.to);
      expect(hashed.setCookie).toBe(cookie);
    }
    // A new test (other variants) ignores the old cookie.
    const next = await c.update({
      id: link.id,
      test: testOf({
        variants: [
          { url: C, weight: 50 },
          { url: D, weight: 50 },
        ],
      }),
    });
    const after = await visit(next, { ip: '198.51.100.4', cookie: `lt_t_${link.shortId}=${link.testId}.${index}` });
    expect([C, D]).toContain(after.to);
    expect(after.setCookie).toContain(`=${next.testId}.`);
  });

  test('iOS, Android and geo destinations win over the test; bots, HEAD and prefetches get the url; none of them joins it', async () => {
    const c = await client();
    const link = await c.create({
      ios: 'https://apps.example/ios',
      android: 'https://apps.example/android',
      geo: { DE: 'https://shop.example/de' },
      test: testOf(),
    });
    const joined = await visit(link);
    expect([A, B]).toContain(joined.to);
    const outside = [
      await visit(link, { ua: IPHONE }),
      await visit(link, { ua: ANDROID }),
      await visit(link, { ip: IP_DE, headers: { 'cf-ipcountry': 'DE' } }),
      await visit(link, { ua: GOOGLEBOT }),
    ];
    expect(outside.map((v) => v.to)).toEqual([
      'https://apps.example/ios',
      'https://apps.example/android',
      'https://shop.example/de',
      'https://shop.example/original',
    ]);
    for (const v of outside) expect(v.setCookie).toBeUndefined();
    // Not clicks: answered with the url, no cookie.
    for (const o of [{ method: 'HEAD' as const }, { headers: { 'sec-purpose': 'prefetch' } }]) {
      const v = await visit(link, { ...o, ip: IP_US });
      expect(v.to).toBe('https://shop.example/original');
      expect(v.setCookie).toBeUndefined();
    }
    // One click joined the test; the three people outside it have no variant (the bot is no click at all).
    const counts = await variantCounts(c, link.id, 4);
    expect(Object.fromEntries(counts)).toEqual({ [String([A, B].indexOf(joined.to))]: 1, '(none)': 3 });
    // groupBy=variant needs the link.
    expect((await c.send('GET', '/api/analytics?groupBy=variant')).json().field).toBe('groupBy');
  });

  test('once endsAt has passed the redirect stops splitting, before any completion', async () => {
    const c = await client();
    const link = await c.create({ test: testOf({ endsAt: inHours(1) }) });
    expect([A, B]).toContain((await visit(link)).to);
    // An instance whose clock is two hours on (the same database) answers past the end.
    const later = await startTestApp(
      onPostgres ? { clock: () => new Date(nowMs + 2 * HOUR) } : { clock: () => new Date(nowMs + 2 * HOUR), database: t.database },
    );
    try {
      const after = await visit(link, { app: later });
      expect(after.to).toBe('https://shop.example/original');
      expect(after.setCookie).toBeUndefined();
      expect((await c.result(link.id)).status).toBe('running');
    } finally {
      await later.close();
    }
  });
});

/** Converts a click: a lead for it, or a sale of `amount` (minor units) in `currency`. */
async function convert(c: Awaited<ReturnType<typeof client>>, clickId: string, kind: 'lead' | 'sale', amount = 1000, currency = 'eur') {
  const customer = `cust-${clickId}`;
  const lead = await c.send('POST', '/api/track/lead', { clickId, eventName: 'Sign up', customerExternalId: customer, customerName: 'C' });
  expect(lead.statusCode, lead.body).toBe(200);
  if (kind === 'sale') {
    const sale = await c.send('POST', '/api/track/sale', { customerExternalId: customer, customerName: 'C', amount, currency, eventName: 'Purchase' });
    expect(sale.statusCode, sale.body).toBe(200);
  }
}

/**
 * Visits from distinct visitors until `want` clicks of each variant are had: the first `want`
 * click ids of each variant, and `visits`, how many clicks each variant had in all.
 */
async function clicksByVariant(link: Link, urls: string[], want: number): Promise<string[][] & { visits: number[] }> {
  const ids = Object.assign(
    urls.map((): string[] => []),
    { visits: urls.map(() => 0) },
  );
  for (let i = 0; ids.some((l) => l.length < want); i++) {
    if (i > 400) throw new Error('the split never reached every variant');
    const v = await visit(link, { ip: `172.16.${i >> 8}.${i & 255}`, ua: `${DESKTOP} n/${i}` });
    const k = urls.indexOf(v.to);
    ids.visits[k]!++;
    if (ids[k]!.length < want) ids[k]!.push(v.clickId!);
  }
  return ids;
}

/** The clicks are written in batches: a conversion needs its click stored. */
async function stored(clickIds: string[]) {
  const ok = await within(20_000, async () => {
    const [row] = await rows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM clicks WHERE id = ANY(${`{${clickIds.join(',')}}`}::uuid[])`);
    return row!.n === clickIds.length;
  });
  expect(ok).toBe(true);
}

describe('results and completion', () => {
  test('figures by variant: conversions count each click once, probability to be best, the days', async () => {
    const c = await client();
    const link = await c.create({ test: testOf() });
    const split = await clicksByVariant(link, [A, B], 4);
    const [a, b] = split;
    const [n0, n1] = split.visits as [number, number];
    await stored([...a!, ...b!]);
    // Variant 0: one click with a lead and a sale (and a second lead: still one conversion); variant 1: three converted clicks.
    await convert(c, a![0]!, 'sale');
    const second = await c.send('POST', '/api/track/lead', { clickId: a![0], eventName: 'Again', customerExternalId: `other-${a![0]}`, customerName: 'O' });
    expect(second.statusCode, second.body).toBe(200);
    for (const id of b!.slice(0, 3)) await convert(c, id, 'lead');
    const r = await c.result(link.id);
    expect(r.status).toBe('running');
    expect(r.winner).toBeNull();
    const [v0, v1] = r.variants;
    expect(v0).toMatchObject({ url: A, weight: 50, clicks: n0, conversions: 1, conversionRate: 1 / n0, revenue: { eur: 1000 } });
    expect(v1).toMatchObject({ url: B, weight: 50, clicks: n1, conversions: 3, conversionRate: 3 / n1, revenue: {} });
    // Beta(1 + 1, 1 + n0 − 1) against Beta(1 + 3, 1 + n1 − 3), by Evan Miller's closed form, to 3 decimals.
    const exact = probabilityBBeatsA(2, n0, 4, n1 - 2);
    expect(v1!.probabilityBest).toBe(Math.round(exact * 1000) / 1000);
    expect(v0!.probabilityBest).toBe(Math.round((1 - exact) * 1000) / 1000);
    expect(r.days).toEqual([{ day: clock().toISOString().slice(0, 10), clicks: [n0, n1], conversions: [1, 3] }]);
  });

  test('at endsAt the job completes the test with autoApply: the winner becomes the url, link.updated is sent, results are kept', async () => {
    const c = await client();
    await endpoint(t, c.ws.id, ['link.updated']);
    // Ends in a moment by the database's clock, which the job goes by.
    const link = await c.create({ test: testOf({ endsAt: new Date(Date.now() + 1500).toISOString(), metric: 'sales' }) });
    const split = await clicksByVariant(link, [A, B], 2);
    const [a, b] = split;
    await stored([...a!, ...b!]);
    await convert(c, b![1]!, 'sale');
    const done = await within(20_000, async () => {
      await t.runtime.maintain();
      return (await c.result(link.id)).status === 'completed';
    });
    expect(done).toBe(true);
    const after = await c.link(link.id);
    expect(after).toMatchObject({ url: B, test: null, testId: null });
    const r = await c.result(link.id);
    expect(r).toMatchObject({ testId: link.testId, status: 'completed', winner: 1 });
    expect(r.variants.map((v) => [v.clicks, v.conversions])).toEqual([
      [split.visits[0], 0],
      [split.visits[1], 1],
    ]);
    const updated = (await eventsOf(t, c.ws.id, 'link.updated')).filter((e) => e.body.data.id === link.id);
    expect(updated).toHaveLength(1);
    expect(updated[0]!.body.data).toMatchObject({ url: B, test: null });
    // The redirect follows at once (the cache was emptied).
    expect((await visit(link)).to).toBe(B);
  });

  test('no conversion: no winner, the link keeps its url; autoApply false keeps it too', async () => {
    const c = await client();
    const quiet = await c.create({ test: testOf({ endsAt: new Date(Date.now() + 1200).toISOString() }) });
    const manual = await c.create({ test: testOf({ endsAt: new Date(Date.now() + 1200).toISOString(), autoApply: false }) });
    const [, b] = await clicksByVariant(manual, [A, B], 1);
    await stored(b!);
    await convert(c, b![0]!, 'lead');
    const done = await within(20_000, async () => {
      await t.runtime.maintain();
      return (await c.result(quiet.id)).status === 'completed' && (await c.result(manual.id)).status === 'completed';
    });
    expect(done).toBe(true);
    expect((await c.result(quiet.id)).winner).toBeNull();
    expect((await c.link(quiet.id)).url).toBe('https://shop.example/original');
    expect((await c.result(manual.id)).winner).toBe(1);
    expect(await c.link(manual.id)).toMatchObject({ url: 'https://shop.example/original', test: null });
  });

  test('revenue: the winner has the most net revenue in the currency per test click, other currencies aside; ties to the lowest index', async () => {
    const c = await client();
    const link = await c.create({ test: testOf({ metric: 'revenue', currency: 'usd' }) });
    const [a, b] = await clicksByVariant(link, [A, B], 2);
    await stored([...a!, ...b!]);
    await convert(c, a![0]!, 'sale', 5000, 'usd');
    await convert(c, b![0]!, 'sale', 900_000, 'jpy');
    await convert(c, b![1]!, 'sale', 4000, 'usd');
    const r = await c.result(link.id);
    expect(r.variants.map((v) => v.probabilityBest)).toEqual([null, null]);
    expect(r.variants[1]!.revenue).toEqual({ jpy: 900_000, usd: 4000 });
    // Per test click, in usd only (the yen would win by any sum of amounts).
    const perClick = r.variants.map((v) => (v.revenue.usd ?? 0) / v.clicks);
    const expected = perClick[1]! > perClick[0]! ? 1 : 0;
    const done = ok<Result>(await c.send('POST', `/api/links/${link.id}/test/complete`, {}), 200);
    expect(done).toMatchObject({ status: 'completed', winner: expected });
    expect((await c.link(link.id)).url).toBe([A, B][expected]);

    const tie = await c.create({ test: testOf() });
    const doneTie = ok<Result>(await c.send('POST', `/api/links/${tie.id}/test/complete`, {}), 200);
    // No click at all: no winner; the url stays.
    expect(doneTie.winner).toBeNull();
    expect((await c.link(tie.id)).url).toBe('https://shop.example/original');
  });

  test('POST …/complete applies the variant asked for; an index the test has not is a 400', async () => {
    const c = await client();
    const link = await c.create({ test: testOf() });
    expectField(await c.send('POST', `/api/links/${link.id}/test/complete`, { variant: 2 }), 'variant', 'variant_index');
    const done = ok<Result>(await c.send('POST', `/api/links/${link.id}/test/complete`, { variant: 1, note: 'ignored' }), 200);
    expect(done).toMatchObject({ status: 'completed', winner: 1, testId: link.testId });
    expect(await c.link(link.id)).toMatchObject({ url: B, test: null });
    expect((await visit(link)).to).toBe(B);
    expect((await c.send('POST', '/api/links/00000000-0000-4000-8000-000000000000/test/complete', {})).statusCode).toBe(404);
  });

  test('two instances running the job at once complete each test once, with one link.updated', async () => {
    const c = await client();
    await endpoint(t, c.ws.id, ['link.updated']);
    const links = await Promise.all(Array.from({ length: 5 }, () => c.create({ test: testOf({ endsAt: new Date(Date.now() + 1200).toISOString() }) })));
    const [, b] = await clicksByVariant(links[0]!, [A, B], 1);
    await stored(b!);
    await convert(c, b![0]!, 'lead');
    const other = await startTestApp(onPostgres ? { clock } : { clock, database: t.database });
    try {
      const done = await within(20_000, async () => {
        await Promise.all([t.runtime.maintain(), other.runtime.maintain(), t.runtime.maintain(), other.runtime.maintain()]);
        const results = await Promise.all(links.map((l) => c.result(l.id)));
        return results.every((r) => r.status === 'completed');
      });
      expect(done).toBe(true);
    } finally {
      await other.close();
    }
    const updated = (await eventsOf(t, c.ws.id, 'link.updated')).map((e) => e.body.data.id);
    expect(updated.sort()).toEqual(links.map((l) => l.id).sort());
    expect((await c.link(links[0]!.id)).url).toBe(B);
    const completions = await rows<{ n: number }>(
      t.database.db,
      sql`SELECT count(*)::int AS n FROM link_tests WHERE link_id = ANY(${`{${links.map((l) => l.id).join(',')}}`}::uuid[]) AND status = 'completed'`,
    );
    expect(completions[0]!.n).toBe(links.length);
  });
});

/**
 * The chi-square value exceeded with probability p at `df` degrees of freedom: bisection on the
 * survival function, the density's tail integrated by Simpson's rule.
 */
function chiSquareCritical(df: number, p: number): number {
  const k = df / 2;
  let lnGammaK = 0;
  // Γ(k) for half-integer or integer k: Γ(1/2) = √π, Γ(1) = 1, Γ(x + 1) = x Γ(x).
  for (let x = k; x > 1; x -= 1) lnGammaK += Math.log(x - 1);
  if (Number.isInteger(k * 2) && !Number.isInteger(k)) lnGammaK += Math.log(Math.sqrt(Math.PI));
  const density = (x: number) => (x <= 0 ? 0 : Math.exp((k - 1) * Math.log(x) - x / 2 - k * Math.log(2) - lnGammaK));
  const tail = (x: number) => {
    const hi = x + 400;
    const n = 20_000;
    const h = (hi - x) / n;
    let s = density(x) + density(hi);
    for (let i = 1; i < n; i++) s += density(x + i * h) * (i % 2 ? 4 : 2);
    return (s * h) / 3;
  };
  let lo = 0;
  let hi = 200;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (tail(mid) > p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
