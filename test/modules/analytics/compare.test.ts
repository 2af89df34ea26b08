/**
 * compare=previous|year on GET /api/analytics (operations.md §14 "Comparison") over HTTP: each
 * group gains `previous`, the same group's clicks, leads, sales and revenue in the earlier
 * period — the period of the same length just before, or the same dates a year before. A
 * breakdown (link, country) pairs rows by key; a timeseries pairs the i-th bucket of each
 * period, and lists a bucket where only the earlier period has data, so the previous figures
 * add up to the earlier period's totals. Every previous figure is also checked against the
 * plain answer for the earlier dates. Without groupBy or startDate, compare is a 400.
 *
 * Clicks are made at chosen times (the app's clock, pinned per visit); leads and sales are
 * stamped by the database at "now", so the data sits in both periods by choosing the periods:
 * sales fall in the current period of one query and in the earlier period of another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { DESKTOP, IP_DE, IP_GB, IP_US, UUID } from '../../helpers/visitors.js';
import { expect400 } from '../conversions/helpers.js';

let pinned: number | undefined;
let t: TestApp;
let s: Awaited<ReturnType<typeof scenario>>;

const HOUR = 3_600_000;
const DAY = 86_400_000;
/** Today's UTC midnight. The periods below reach 3 days either side of it, so a run across midnight stays inside them. */
const D = Math.floor(Date.now() / DAY) * DAY;
const day = (n: number) => new Date(D + n * DAY).toISOString().slice(0, 10);
/** The same date a year later (the tests' dates avoid 29 February). */
const nextYear = (date: string) => `${Number(date.slice(0, 4)) + 1}${date.slice(4)}`;
const YEAR = Date.parse(`${nextYear(day(0))}T00:00:00Z`) - D;

beforeAll(async () => {
  t = await startTestApp({ clock: () => new Date(pinned ?? Date.now()) });
  s = await scenario();
}, 120_000);

afterAll(async () => {
  await t?.close();
});

type Money = Record<string, number>;
interface Previous {
  clicks: number;
  leads: number;
  sales: number;
  revenue: Money;
}
interface Group extends Previous {
  key: string;
  saleAmount: number;
  refunded: Money;
  previous?: Previous;
}

const none: Previous = { clicks: 0, leads: 0, sales: 0, revenue: {} };

async function scenario() {
  const { send, collectionId } = await workspaceWithCollection(t);
  const res = await send('POST', '/api/links', [
    { url: 'https://shop.example/1', collectionId },
    { url: 'https://shop.example/2', collectionId },
  ]);
  expect(res.statusCode, res.body).toBe(201);
  const [l1, l2] = res.json<{ id: string; shortUrl: string }[]>() as [{ id: string; shortUrl: string }, { id: string; shortUrl: string }];
  const clicks = async (link: { shortUrl: string }, ip: string, at: number, n: number) => {
    const ids: string[] = [];
    pinned = at;
    try {
      for (let i = 0; i < n; i++) {
        const r = await t.inject({ method: 'GET', url: new URL(link.shortUrl).pathname, remoteAddress: ip, headers: { 'user-agent': DESKTOP } });
        expect(r.statusCode, r.body).toBe(302);
        ids.push(new URL(r.headers.location as string).searchParams.get('ltid')!);
      }
    } finally {
      pinned = undefined;
    }
    for (const id of ids) expect(id).toMatch(UUID);
    return ids;
  };
  const track = async (kind: 'lead' | 'sale', body: Record<string, unknown>) => {
    const r = await send('POST', `/api/track/${kind}`, { customerExternalId: `c-${String(body.clickId)}`, customerName: 'C', ...body });
    expect(r.statusCode, r.body).toBe(200);
  };
  await clicks(l1, IP_DE, D - 8 * DAY + 10 * HOUR, 2);
  const p2 = await clicks(l2, IP_US, D - 6 * DAY + 10 * HOUR, 4);
  const c1 = await clicks(l1, IP_GB, D - DAY + 10 * HOUR, 3);
  await clicks(l2, IP_GB, D + 2 * DAY + 10 * HOUR, 1);
  // A year later: the current period of compare=year.
  await clicks(l1, IP_GB, D + YEAR - DAY + 10 * HOUR, 2);
  await clicks(l2, IP_DE, D + YEAR + 2 * DAY + 10 * HOUR, 1);
  // Hours of one day 20 days ago: an hourly series compared with the 6 hours before it.
  await clicks(l1, IP_GB, D - 20 * DAY + 3.5 * HOUR, 1);
  await clicks(l1, IP_GB, D - 20 * DAY + 10.25 * HOUR, 2);
  // Now (day 0): a lead, and sales in two currencies on clicks of days -1 and -6.
  await track('lead', { clickId: c1[1], eventName: 'Sign up' });
  await track('sale', { clickId: c1[0], amount: 1000, currency: 'usd' });
  await track('sale', { clickId: p2[0], amount: 500, currency: 'eur' });
  await track('sale', { clickId: p2[1], amount: 300, currency: 'usd' });
  const get = (query: string) => send('GET', `/api/analytics?${query.includes('take=') ? '' : 'take=5000&'}${query}`);
  const groups = async (query: string): Promise<Group[]> => {
    const r = await get(query);
    expect(r.statusCode, r.body).toBe(200);
    return r.json<Group[]>().map(({ key, clicks, leads, sales, saleAmount, revenue, refunded, previous }) => ({
      key,
      clicks,
      leads,
      sales,
      saleAmount,
      revenue,
      refunded,
      previous,
    }));
  };
  return { l1: l1.id, l2: l2.id, get, groups };
}

const figures = (g: Group | undefined): Previous => (g ? { clicks: g.clicks, leads: g.leads, sales: g.sales, revenue: g.revenue } : none);

/** Each row's previous figures are the plain answer's for the earlier period (`earlier`, the same groupBy). */
async function expectPreviousOf(query: string, earlier: string): Promise<void> {
  const compared = await s.groups(query);
  const plain = new Map((await s.groups(earlier)).map((g) => [g.key, g]));
  expect(compared.length, query).toBeGreaterThan(0);
  for (const g of compared) expect(g.previous, `${query} ${g.key}`).toEqual(figures(plain.get(g.key)));
}

/** A series' previous figures added up (per currency for revenue), and the plain series of the earlier period added up. */
async function expectSeriesTotals(query: string, earlier: string): Promise<void> {
  const add = (rows: Previous[]) =>
    rows.reduce<Previous>((sum, g) => {
      const revenue = { ...sum.revenue };
      for (const [c, a] of Object.entries(g.revenue)) revenue[c] = (revenue[c] ?? 0) + a;
      return { clicks: sum.clicks + g.clicks, leads: sum.leads + g.leads, sales: sum.sales + g.sales, revenue };
    }, none);
  const compared = await s.groups(query);
  expect(add(compared.map((g) => g.previous!)), query).toEqual(add((await s.groups(earlier)).map(figures)));
}

const at0 = (date: string) => `${date}T00:00:00Z`;
const sales3 = { sales: 3, revenue: { eur: 500, usd: 1300 } };

describe('compare=previous', () => {
  // The current week, days -3 to 3 (the sales of day 0 in it); the earlier one, days -10 to -4.
  const week = `startDate=${day(-3)}&endDate=${day(3)}&compare=previous`;
  const before = `startDate=${day(-10)}&endDate=${day(-4)}`;

  it('a breakdown by link and by country: each row beside the same key of the week before', async () => {
    expect(await s.groups(`groupBy=link&${week}`)).toEqual([
      { key: s.l1, clicks: 3, leads: 1, sales: 1, saleAmount: 1000, revenue: { usd: 1000 }, refunded: { usd: 0 }, previous: { ...none, clicks: 2 } },
      {
        key: s.l2,
        clicks: 1,
        leads: 0,
        sales: 2,
        saleAmount: 800,
        revenue: { eur: 500, usd: 300 },
        refunded: { eur: 0, usd: 0 },
        previous: { ...none, clicks: 4 },
      },
    ]);
    // US has the sales of the week (their clicks were before it) and the clicks of the week before; DE (earlier only) is not listed.
    const countries = await s.groups(`groupBy=country&${week}`);
    expect(countries.map((g) => [g.key, g.clicks, g.sales, g.previous])).toEqual([
      ['GB', 4, 1, none],
      ['US', 0, 2, { ...none, clicks: 4 }],
    ]);
    await expectPreviousOf(`groupBy=link&${week}`, `groupBy=link&${before}`);
    await expectPreviousOf(`groupBy=country&${week}`, `groupBy=country&${before}`);
  });

  it('a daily series: bucket i beside bucket i of the week before, with the buckets only it has data in', async () => {
    const series = await s.groups(`groupBy=timeseries&sort=asc&${week}`);
    expect(series.map((g) => [g.key, g.clicks, g.leads, g.sales, g.revenue, g.previous])).toEqual([
      [at0(day(-1)), 3, 0, 0, {}, { ...none, clicks: 2 }], // day -8 is the 3rd day of the week before
      [at0(day(0)), 0, 1, 3, sales3.revenue, none],
      [at0(day(1)), 0, 0, 0, {}, { ...none, clicks: 4 }], // day -6: nothing now, listed for the earlier data
      [at0(day(2)), 1, 0, 0, {}, none],
    ]);
    // Newest first and paged: the same rows.
    const desc = await s.groups(`groupBy=timeseries&sort=desc&${week}`);
    expect(desc).toEqual([...series].reverse());
    const paged = [...(await s.groups(`groupBy=timeseries&sort=desc&take=3&${week}`)), ...(await s.groups(`groupBy=timeseries&sort=desc&skip=3&${week}`))];
    expect(paged).toEqual(desc);
    await expectSeriesTotals(`groupBy=timeseries&${week}`, `groupBy=timeseries&${before}`);
  });

  it('the sales in the earlier period: the week after today compared with the week up to today', async () => {
    const next = `startDate=${day(1)}&endDate=${day(7)}&compare=previous`;
    const upToToday = `startDate=${day(-6)}&endDate=${day(0)}`;
    expect((await s.groups(`groupBy=link&${next}`)).map((g) => [g.key, g.clicks, g.previous])).toEqual([
      [s.l2, 1, { clicks: 4, leads: 0, sales: 2, revenue: { eur: 500, usd: 300 } }],
    ]);
    const series = await s.groups(`groupBy=timeseries&sort=asc&${next}`);
    expect(series.map((g) => [g.key, g.clicks, g.previous])).toEqual([
      [at0(day(1)), 0, { ...none, clicks: 4 }],
      [at0(day(2)), 1, none],
      [at0(day(6)), 0, { ...none, clicks: 3 }],
      [at0(day(7)), 0, { clicks: 0, leads: 1, ...sales3 }],
    ]);
    await expectSeriesTotals(`groupBy=timeseries&${next}`, `groupBy=timeseries&${upToToday}`);
    await expectPreviousOf(`groupBy=country&${next}`, `groupBy=country&${upToToday}`);
  });

  it('date-time bounds: as many milliseconds before; an hourly series by hour place', async () => {
    const hours = `startDate=${day(-20)}T08:00:00Z&endDate=${day(-20)}T13:59:59.999Z&compare=previous&interval=hour`;
    const series = await s.groups(`groupBy=timeseries&sort=asc&${hours}`);
    expect(series.map((g) => [g.key, g.clicks, g.previous!.clicks])).toEqual([
      [`${day(-20)}T09:00:00Z`, 0, 1], // 03:30 is in the 2nd hour of 02:00–08:00
      [`${day(-20)}T10:00:00Z`, 2, 0],
    ]);
    await expectSeriesTotals(
      `groupBy=timeseries&${hours}`,
      `groupBy=timeseries&interval=hour&startDate=${day(-20)}T02:00:00Z&endDate=${day(-20)}T07:59:59.999Z`,
    );
  });

  it('in a time zone: whole local days before', async () => {
    const zone = 'timezone=Asia/Kolkata';
    await expectPreviousOf(`groupBy=link&${zone}&${week}`, `groupBy=link&${zone}&${before}`);
    await expectSeriesTotals(`groupBy=timeseries&${zone}&${week}`, `groupBy=timeseries&${zone}&${before}`);
    const series = await s.groups(`groupBy=timeseries&sort=asc&${zone}&${week}`);
    for (const g of series) expect(g.key).toMatch(/T00:00:00\+05:30$/);
  });
});

describe('compare=year', () => {
  // The same week a year later: the earlier period is the week of the sales.
  const week = `startDate=${nextYear(day(-3))}&endDate=${nextYear(day(3))}&compare=year`;
  const yearBefore = `startDate=${day(-3)}&endDate=${day(3)}`;

  it('a breakdown: each row beside the same key on the same dates a year before', async () => {
    expect((await s.groups(`groupBy=link&${week}`)).map((g) => [g.key, g.clicks, g.previous])).toEqual([
      [s.l1, 2, { clicks: 3, leads: 1, sales: 1, revenue: { usd: 1000 } }],
      [s.l2, 1, { clicks: 1, leads: 0, sales: 2, revenue: { eur: 500, usd: 300 } }],
    ]);
    await expectPreviousOf(`groupBy=link&${week}`, `groupBy=link&${yearBefore}`);
    await expectPreviousOf(`groupBy=country&${week}`, `groupBy=country&${yearBefore}`);
  });

  it('a daily series: each day beside the same day a year before', async () => {
    const series = await s.groups(`groupBy=timeseries&sort=asc&${week}`);
    expect(series.map((g) => [g.key, g.clicks, g.previous])).toEqual([
      [at0(nextYear(day(-1))), 2, { ...none, clicks: 3 }],
      [at0(nextYear(day(0))), 0, { clicks: 0, leads: 1, ...sales3 }],
      [at0(nextYear(day(2))), 1, { ...none, clicks: 1 }],
    ]);
    await expectSeriesTotals(`groupBy=timeseries&${week}`, `groupBy=timeseries&${yearBefore}`);
    // By month: this month beside the same month a year before.
    await expectSeriesTotals(`groupBy=timeseries&interval=month&${week}`, `groupBy=timeseries&interval=month&${yearBefore}`);
  });
});

describe('compare needs groupBy and startDate', () => {
  it('a 400 naming the field, in English and Arabic', async () => {
    expect400(await s.get(`compare=previous&startDate=${day(-3)}`), 'compare', 'invalid_query');
    expect400(await s.get('groupBy=link&compare=year'), 'startDate', 'invalid_query');
    expect400(await s.get(`groupBy=link&startDate=${day(-3)}&compare=week`), 'compare', 'invalid_query');
    expect((await s.get(`groupBy=link&startDate=${day(-3)}&compare=year`)).statusCode).toBe(200);
  });
});
