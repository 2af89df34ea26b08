/**
 * Money per currency (operations.md §14 "Money") over HTTP: every group of GET /api/analytics
 * answers `revenue` (net of refunds) and `refunded` per currency and never adds currencies
 * together; `saleAmount` stays the sum of all. Sales in USD and EUR come through the tracking
 * endpoint and a Stripe checkout in EUR, refunded in part then in full (charge.refunded); they
 * are read back by link, country, continent, collection and timeseries, from whole periods
 * (rollups) and from a period with a raw edge, as CSV, and through GET /api/events.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { DESKTOP, IP_DE, IP_GB, UUID } from '../../helpers/visitors.js';
import { conversionClient, type Link } from '../conversions/helpers.js';
import { SIGNING_SECRET, connectStripe, postEvent, stripeEvent, stripeId } from '../stripe/helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

type Money = Record<string, number>;

interface Group {
  key: string;
  clicks: number;
  leads: number;
  sales: number;
  saleAmount: number;
  revenue: Money;
  refunded: Money;
}

const DAY = 86_400_000;
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function shop() {
  const api = await conversionClient(t);
  const click = async (link: Link, ip: string) => {
    const res = await t.inject({ method: 'GET', url: new URL(link.shortUrl).pathname, remoteAddress: ip, headers: { 'user-agent': DESKTOP } });
    expect(res.statusCode, res.body).toBe(302);
    const id = new URL(res.headers.location as string).searchParams.get('ltid');
    expect(id).toMatch(UUID);
    return id!;
  };
  const sale = (clickId: string, amount: number, currency: string) =>
    api.okSale({ clickId, amount, currency, customerExternalId: `c-${clickId}`, customerName: 'C' });
  const connection = await connectStripe(t, api.ws);
  const stripe = async (type: 'checkout.session.completed' | 'charge.refunded', object: Record<string, unknown>) => {
    const res = await postEvent(t, connection.webhookUrl, stripeEvent(type, object), SIGNING_SECRET);
    expect(res.statusCode, res.body).toBe(200);
  };
  const groups = async (query: string): Promise<Group[]> => {
    const res = await api.send('GET', `/api/analytics?take=5000&${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res
      .json<Group[]>()
      .map(({ key, clicks, leads, sales, saleAmount, revenue, refunded }) => ({ key, clicks, leads, sales, saleAmount, revenue, refunded }));
  };
  return { api, click, sale, stripe, groups };
}

/** Rows' money added per currency, as a client shows a mixed total: a list of totals. */
function perCurrency(groups: Group[], field: 'revenue' | 'refunded'): Money {
  const out: Money = {};
  for (const g of groups) for (const [currency, amount] of Object.entries(g[field])) out[currency] = (out[currency] ?? 0) + amount;
  return out;
}

describe('revenue and refunded per currency', () => {
  it('USD and EUR sales and a Stripe refund: each group per currency, net of refunds, never added; saleAmount the sum of all', async () => {
    const s = await shop();
    const [a, b] = [await s.api.link(), await s.api.link()];
    const [a1, a2, b1] = [await s.click(a, IP_GB), await s.click(a, IP_GB), await s.click(b, IP_DE)];
    await s.sale(a1, 5000, 'usd');
    await s.sale(a2, 3000, 'eur');
    await s.sale(b1, 2000, 'eur');
    await s.sale(b1, 100, 'usd');
    const paymentIntent = stripeId('pi');
    const session = { client_reference_id: a1, amount_total: 4900, currency: 'eur', customer: stripeId('cus'), payment_intent: paymentIntent };
    await s.stripe('checkout.session.completed', session);
    await s.stripe('charge.refunded', { payment_intent: paymentIntent, amount_refunded: 1500, refunded: false });

    const linkA = { key: a.id, clicks: 2, leads: 0, sales: 3, saleAmount: 11_400, revenue: { eur: 6400, usd: 5000 }, refunded: { eur: 1500, usd: 0 } };
    const linkB = { key: b.id, clicks: 1, leads: 0, sales: 2, saleAmount: 2100, revenue: { eur: 2000, usd: 100 }, refunded: { eur: 0, usd: 0 } };
    const now = Date.now();
    // Whole periods (rollups only), and a start 20 minutes ago (its partial hour read raw).
    const periods = ['', `startDate=${date(now - DAY)}&endDate=${date(now + DAY)}`, `startDate=${new Date(now - 20 * 60_000).toISOString()}`];
    for (const period of periods) {
      // The clicks of a period starting 20 minutes ago are all there: they were made since.
      expect(await s.groups(`groupBy=link&${period}`), period).toEqual([linkA, linkB]);
      expect(await s.groups(`groupBy=country&${period}`), period).toEqual([
        { ...linkA, key: 'GB' },
        { ...linkB, key: 'DE' },
      ]);
      const whole = { clicks: 3, leads: 0, sales: 5, saleAmount: 13_500, revenue: { eur: 8400, usd: 5100 }, refunded: { eur: 1500, usd: 0 } };
      expect(await s.groups(`groupBy=continent&${period}`), period).toEqual([{ key: 'EU', ...whole }]);
      // Two links of one collection: their amounts added per currency, not per link.
      expect(
        (await s.groups(`groupBy=collection&${period}`)).map(({ key: _, ...g }) => g),
        period,
      ).toEqual([whole]);
      const series = await s.groups(`groupBy=timeseries&interval=hour&${period}`);
      expect(perCurrency(series, 'revenue'), period).toEqual(whole.revenue);
      expect(perCurrency(series, 'refunded'), period).toEqual(whole.refunded);
      expect(series.reduce((n, g) => n + g.saleAmount, 0)).toBe(whole.saleAmount);
    }

    // A full refund: EUR revenue of link A is down to the tracked sale; USD untouched.
    await s.stripe('charge.refunded', { payment_intent: paymentIntent, amount_refunded: 4900, refunded: true });
    for (const period of periods)
      expect(await s.groups(`groupBy=link&${period}`), period).toEqual([
        { ...linkA, saleAmount: 8000, revenue: { eur: 3000, usd: 5000 }, refunded: { eur: 4900, usd: 0 } },
        linkB,
      ]);

    // The events keep their own currency and refunded amount.
    const events = await s.api.send('GET', '/api/events?type=sale&sort=asc');
    expect(events.statusCode, events.body).toBe(200);
    const sold = events.json<{ amount: number; currency: string; refundedAmount: number }[]>().map((e) => [e.amount, e.currency, e.refundedAmount]);
    expect(sold).toEqual([
      [5000, 'usd', 0],
      [3000, 'eur', 0],
      [2000, 'eur', 0],
      [100, 'usd', 0],
      [4900, 'eur', 4900],
    ]);

    // CSV: the maps as JSON text cells.
    const csv = await s.api.send('GET', '/api/analytics?format=csv&groupBy=link');
    expect(csv.statusCode, csv.body).toBe(200);
    expect(parse(csv.body) as string[][]).toEqual([
      ['key', 'clicks', 'leads', 'sales', 'saleAmount', 'revenue', 'refunded', 'visitors'],
      [a.id, '2', '0', '3', '8000', '{"eur":3000,"usd":5000}', '{"eur":4900,"usd":0}', '1'],
      [b.id, '1', '0', '2', '2100', '{"eur":2000,"usd":100}', '{"eur":0,"usd":0}', '1'],
    ]);
  });

  it('a group without sales has empty maps; one currency alone is one entry', async () => {
    const s = await shop();
    const [a, b] = [await s.api.link(), await s.api.link()];
    await s.click(a, IP_GB);
    await s.sale(await s.click(b, IP_DE), 4200, 'jpy');
    const found = await s.groups('groupBy=country');
    expect(found).toEqual([
      { key: 'DE', clicks: 1, leads: 0, sales: 1, saleAmount: 4200, revenue: { jpy: 4200 }, refunded: { jpy: 0 } },
      { key: 'GB', clicks: 1, leads: 0, sales: 0, saleAmount: 0, revenue: {}, refunded: {} },
    ]);
  });
});
