/**
 * GET /api/links?withStats=true (operations.md §14 "Links list with performance") over HTTP:
 * each link's clicks, leads, sales, revenue and refunded per currency match what was made
 * through the real API (visits through the redirect, /api/track/lead, /api/track/sale, a Stripe
 * checkout refunded in part) and what GET /api/analytics answers; orderBy each figure both
 * ways, ties by createdAt; revenue needs a currency (400) and currencies are never added; a
 * click just before local midnight falls in its local day; withStats needs analyticsRead (403);
 * every list filter works with it. Runs on PGlite, and on PostgreSQL + Redis with DATABASE_URL.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { IP_DE, IP_GB } from '../../helpers/visitors.js';
import { expect400, settle, statsClient, type StatLink, type Stats } from './stats.helpers.js';

let pinned: number | undefined;
const clock = () => new Date(pinned ?? Date.now());
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

const statsOf = (links: StatLink[]) => Object.fromEntries(links.map((l) => [l.id, l.stats]));

describe('stats of each link', () => {
  it('match the clicks, leads and sales made through the API, per currency and net of refunds, as GET /api/analytics', async () => {
    const api = await statsClient(t);
    const [a, b, idle] = await api.links([{}, {}, {}]);
    const a1 = await api.click(a!, IP_GB);
    const a2 = await api.click(a!, IP_GB);
    await api.click(a!, IP_DE);
    const b1 = await api.click(b!, IP_DE);
    await api.lead(a1);
    await api.lead(b1);
    await api.sale(a1, 5000, 'usd');
    await api.sale(a2, 3000, 'eur');
    await api.stripeSale(a2, 4900, 'eur', 1500);
    await api.sale(b1, 2000, 'jpy');
    await api.stripeSale(b1, 700, 'usd', 700);
    await settle(t);

    const expected: Record<string, Stats> = {
      [a!.id]: { clicks: 3, leads: 1, sales: 3, revenue: { eur: 6400, usd: 5000 }, refunded: { eur: 1500, usd: 0 } },
      [b!.id]: { clicks: 1, leads: 1, sales: 2, revenue: { jpy: 2000, usd: 0 }, refunded: { jpy: 0, usd: 700 } },
      [idle!.id]: { clicks: 0, leads: 0, sales: 0, revenue: {}, refunded: {} },
    };
    const day = 86_400_000;
    const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    // The default range (the last 30 days), whole UTC days, and a range starting mid-hour (raw edges).
    for (const range of [
      '',
      `&startDate=${date(Date.now() - day)}&endDate=${date(Date.now() + day)}`,
      `&startDate=${new Date(Date.now() - 20 * 60_000).toISOString()}`,
    ]) {
      expect(statsOf(await api.list(`withStats=true${range}`)), range).toEqual(expected);
    }
    // The same figures as the analytics API's link rows.
    const analytics = await api.send('GET', '/api/analytics?groupBy=link');
    expect(analytics.statusCode, analytics.body).toBe(200);
    for (const row of analytics.json<({ key: string } & Stats)[]>()) {
      expect(expected[row.key]).toEqual({ clicks: row.clicks, leads: row.leads, sales: row.sales, revenue: row.revenue, refunded: row.refunded });
    }
    // A range before anything happened: zeros and empty maps. Without withStats: no stats.
    const before = await api.list(`withStats=true&startDate=2020-01-01&endDate=2020-01-31`);
    expect(before.map((l) => l.stats)).toEqual(before.map(() => ({ clicks: 0, leads: 0, sales: 0, revenue: {}, refunded: {} })));
    expect((await api.list('')).every((l) => l.stats === undefined)).toBe(true);
  });

  it('a click just before local midnight counts in that local day, one just after in the next', async () => {
    const api = await statsClient(t);
    const [link] = await api.links([{}]);
    // Asia/Kolkata is UTC+05:30: 18:29Z is 23:59 on 1 March there, 18:31Z 00:01 on 2 March.
    pinned = Date.parse('2026-03-01T18:29:00Z');
    await api.click(link!);
    pinned = Date.parse('2026-03-01T18:31:00Z');
    await api.click(link!);
    await api.click(link!);
    pinned = undefined;
    await settle(t);
    const clicks = async (query: string) => (await api.list(`withStats=true&${query}`))[0]!.stats!.clicks;
    expect(await clicks('startDate=2026-03-01&endDate=2026-03-01&timezone=Asia/Kolkata')).toBe(1);
    expect(await clicks('startDate=2026-03-02&endDate=2026-03-02&timezone=Asia/Kolkata')).toBe(2);
    // In UTC all three are on 1 March; in New York (UTC-05:00) too.
    expect(await clicks('startDate=2026-03-01&endDate=2026-03-01')).toBe(3);
    expect(await clicks('startDate=2026-03-01&endDate=2026-03-01&timezone=America/New_York')).toBe(3);
    expect(await clicks('startDate=2026-02-28&endDate=2026-03-31&timezone=Asia/Kolkata')).toBe(3);
    // Date-times: inclusive bounds to the millisecond.
    expect(await clicks('startDate=2026-03-01T18:30:00Z&endDate=2026-03-01T18:31:00Z')).toBe(2);
    expect(await clicks('startDate=2026-03-01T18:00:00Z&endDate=2026-03-01T18:30:00Z')).toBe(1);
  });
});

describe('orderBy', () => {
  it('orders by each figure both ways, ties by createdAt then insertion, with take and skip', async () => {
    const api = await statsClient(t);
    const links = await api.links(Array.from({ length: 6 }, () => ({})));
    const plan: [clicks: number, leads: number, usd: number, eur: number][] = [
      [2, 1, 0, 900],
      [0, 0, 0, 0],
      [3, 0, 500, 0],
      [2, 2, 500, 100],
      [1, 1, 100, 0],
      [0, 0, 0, 0],
    ];
    for (const [i, [clicks, leads, usd, eur]] of plan.entries()) {
      const ids: string[] = [];
      for (let n = 0; n < clicks; n++) ids.push(await api.click(links[i]!));
      for (let n = 0; n < leads; n++) await api.lead(ids[n]!);
      if (usd) await api.sale(ids[0]!, usd, 'usd');
      if (eur) await api.sale(ids[ids.length - 1]!, eur, 'eur');
    }
    await settle(t);
    const byCreation = await api.list('withStats=true&sort=asc&take=100');
    expect(byCreation.map((l) => l.id)).toEqual(links.map((l) => l.id));
    const rank = (l: StatLink, key: string) =>
      key === 'revenue' ? (l.stats!.revenue.usd ?? 0) : key === 'createdAt' ? 0 : (l.stats as unknown as Record<string, number>)[key]!;
    for (const key of ['clicks', 'leads', 'sales', 'revenue', 'createdAt']) {
      for (const sort of ['asc', 'desc'] as const) {
        const sign = sort === 'asc' ? 1 : -1;
        // byCreation is in creation order: a stable sort keeps it for ties, reversed for desc.
        const base = sort === 'asc' ? byCreation : [...byCreation].reverse();
        const expected = [...base].sort((x, y) => sign * (rank(x, key) - rank(y, key))).map((l) => l.id);
        const query = `withStats=true&orderBy=${key}&sort=${sort}${key === 'revenue' ? '&currency=USD' : ''}`;
        expect(
          (await api.list(`${query}&take=100`)).map((l) => l.id),
          query,
        ).toEqual(expected);
        const pages = [...(await api.list(`${query}&take=4`)), ...(await api.list(`${query}&take=4&skip=4`))];
        expect(
          pages.map((l) => l.id),
          `${query} paged`,
        ).toEqual(expected);
      }
    }
    // EUR orders by EUR alone: the link with 900 EUR and no USD first.
    expect((await api.list('withStats=true&orderBy=revenue&currency=eur&take=1'))[0]!.id).toBe(links[0]!.id);
  });

  it('keeps every list filter working with withStats', async () => {
    const api = await statsClient(t);
    const tag = (await api.send('POST', '/api/tags', [{ name: 'hot' }])).json<{ id: string }[]>()[0]!.id;
    const [plain, tagged, titled] = await api.links([{}, { tagIds: [tag] }, { title: 'Spring sale' }]);
    await api.click(tagged!);
    await api.click(titled!);
    await api.click(titled!);
    await settle(t);
    const ids = async (q: string) => {
      const res = await api.get(`withStats=true&orderBy=clicks&${q}`);
      expect(res.statusCode, res.body).toBe(200);
      return { ids: res.json<StatLink[]>().map((l) => l.id), total: res.headers['x-total-count'] };
    };
    expect(await ids('')).toEqual({ ids: [titled!.id, tagged!.id, plain!.id], total: '3' });
    expect(await ids(`tagId=${tag}`)).toEqual({ ids: [tagged!.id], total: '1' });
    expect(await ids('search=spring')).toEqual({ ids: [titled!.id], total: '1' });
    expect(await ids(`collectionId=${api.collectionId}&take=1&skip=1`)).toEqual({ ids: [tagged!.id], total: '3' });
    expect(await ids(`id=${plain!.id}`)).toEqual({ ids: [plain!.id], total: '1' });
  });
});

describe('refusals', () => {
  it('revenue needs a currency, a figure needs withStats, bad ranges and zones are 400s', async () => {
    const api = await statsClient(t);
    expect400(await api.get('withStats=true&orderBy=revenue'), 'currency', 'revenue_needs_currency');
    expect400(await api.get('withStats=true&orderBy=revenue&currency=xyz'), 'currency', 'currency_code');
    expect400(await api.get('orderBy=clicks'), 'orderBy', 'needs_with_stats');
    expect400(await api.get('withStats=true&timezone=Mars/Olympus'), 'timezone', 'time_zone');
    expect400(await api.get('withStats=true&startDate=2026-03-02&endDate=2026-03-01'), 'startDate', 'start_after_end');
    expect((await api.get('withStats=true&orderBy=nope')).statusCode).toBe(400);
    expect((await api.get('orderBy=createdAt')).statusCode).toBe(200);
  });

  it('withStats needs analyticsRead besides linksRead (403 naming it)', async () => {
    const api = await statsClient(t);
    const { key } = await api.ws.newKey(['linksRead']);
    const res = await api.get('withStats=true', key);
    expect(res.statusCode, res.body).toBe(403);
    const body = res.json<{ error: { code: string }; missingScopes: string[] }>();
    expect([body.error.code, body.missingScopes]).toEqual(['missing_scopes', ['analyticsRead']]);
    expect((await api.get('', key)).statusCode).toBe(200);
    const both = await api.ws.newKey(['linksRead', 'analyticsRead']);
    expect((await api.get('withStats=true', both.key)).statusCode).toBe(200);
  });
});
