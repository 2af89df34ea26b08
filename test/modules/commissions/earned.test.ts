/**
 * Commissions earned with the leads and sales that make them (operations.md §18 "Who earns",
 * "Commissions"), through HTTP as a client would: a program, its default group's rewards, a
 * partner's link clicked, a lead and sales tracked. The partner of the click earns; the first
 * matching reward decides; percentages round half to even; one lead commission per customer; a
 * repeated invoice earns nothing; maxDuration counts months from the first sale; only approved
 * partners earn; nothing earns before the program exists; custom commissions, release and reversal.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { DESKTOP } from '../../helpers/visitors.js';
import { workspaceWithCollection } from '../../helpers/client.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

interface Commission {
  id: string;
  partnerId: string;
  type: string;
  customerId: string | null;
  eventId: string | null;
  saleAmount: number | null;
  currency: string;
  earnings: number;
  status: string;
  holdReasons: string[];
  reversedReason: string | null;
}

type Reward = Record<string, unknown>;

/** A workspace with a program whose default group has `rewards`, and a client for it. */
async function programWith(rewards: Reward[], program: Record<string, unknown> = {}) {
  const { ws, send, collectionId } = await workspaceWithCollection(t);
  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, status = 200) => {
    const res = await send(method, url, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
    return res.json();
  };
  const made = await ok('PUT', '/api/program', {
    name: 'Friends',
    slug: `f-${randomUUID().slice(0, 8)}`,
    landingUrl: 'https://shop.example/',
    currency: 'usd',
    ...program,
  });
  const [group] = await ok('GET', '/api/partner-groups');
  expect(group.name).toBe('default');
  await ok('PUT', '/api/partner-groups', [{ id: group.id, rewards }]);
  const api = {
    ws,
    send,
    ok,
    program: made,
    async partner(name = 'Ana', extra: Record<string, unknown> = {}): Promise<{ id: string; linkPath: string }> {
      const [p] = await ok('POST', '/api/partners', [{ name, email: `${name.toLowerCase()}-${randomUUID().slice(0, 6)}@partner.example`, ...extra }], 201);
      const [link] = await ok('POST', '/api/links', [{ url: 'https://shop.example/spring', collectionId, partnerId: p.id }], 201);
      return { id: p.id, linkPath: new URL(link.shortUrl).pathname };
    },
    async plainLink(): Promise<string> {
      const [link] = await ok('POST', '/api/links', [{ url: 'https://shop.example/plain', collectionId }], 201);
      return new URL(link.shortUrl).pathname;
    },
    async click(path: string): Promise<string> {
      const res = await t.inject({ method: 'GET', url: path, remoteAddress: '81.2.69.160', headers: { 'user-agent': DESKTOP } });
      expect(res.statusCode, res.body).toBe(302);
      return new URL(res.headers.location as string).searchParams.get('ltid')!;
    },
    lead: (clickId: string, customer: string, extra: Record<string, unknown> = {}) =>
      ok('POST', '/api/track/lead', { clickId, eventName: 'Sign up', customerExternalId: customer, customerName: 'Cam Buyer', ...extra }),
    sale: (customer: string, amount: number, extra: Record<string, unknown> = {}) =>
      ok('POST', '/api/track/sale', { customerExternalId: customer, customerName: 'Cam Buyer', amount, currency: 'usd', ...extra }),
    commissions: (query = ''): Promise<Commission[]> => ok('GET', `/api/commissions?sort=asc${query}`),
  };
  return api;
}

describe('commissions earned by leads and sales', () => {
  test('a lead and sales on a partner link earn by the first matching reward; a plain link earns nothing', async () => {
    const api = await programWith([
      { event: 'lead', type: 'flat', amount: 500 },
      { event: 'sale', type: 'percentage', amount: 2000, conditions: [{ field: 'amount', op: 'gte', value: 10000 }] },
      { event: 'sale', type: 'flat', amount: 150 },
    ]);
    const ana = await api.partner('Ana');
    const lead = await api.lead(await api.click(ana.linkPath), 'cust-1');
    await api.sale('cust-1', 12345);
    await api.sale('cust-1', 999);
    const plainLead = await api.lead(await api.click(await api.plainLink()), 'cust-2');
    await api.sale('cust-2', 50000);
    const all = await api.commissions();
    expect(all.map((c) => [c.type, c.partnerId, c.customerId, c.saleAmount, c.earnings, c.currency, c.status])).toEqual([
      ['lead', ana.id, lead.customer.id, null, 500, 'usd', 'pending'],
      // 20 % of 123.45 = 24.69: 2469 exactly; a sale under 100.00 falls to the flat reward.
      ['sale', ana.id, lead.customer.id, 12345, 2469, 'usd', 'pending'],
      ['sale', ana.id, lead.customer.id, 999, 150, 'usd', 'pending'],
    ]);
    expect(plainLead.customer.partnerId).toBeNull();
    const [customer] = await api.ok('GET', `/api/customers?externalId=cust-1`);
    expect(customer.partnerId).toBe(ana.id);
  });

  test("a lead no reward matches earns nothing but wins the customer for its click's partner; their later sale earns for that partner", async () => {
    const api = await programWith([{ event: 'sale', type: 'flat', amount: 700 }]);
    const ana = await api.partner('Ana');
    const lead = await api.lead(await api.click(ana.linkPath), 'won-1');
    expect(await api.commissions()).toEqual([]);
    const [customer] = await api.ok('GET', '/api/customers?externalId=won-1');
    expect(customer.id).toBe(lead.customer.id);
    expect(customer.partnerId).toBe(ana.id);
    // A sale found through the customer (not naming a click) earns for the partner who won them.
    await api.lead(await api.click(await api.plainLink()), 'won-1');
    await api.sale('won-1', 5000);
    expect((await api.commissions()).map((c) => [c.type, c.partnerId, c.earnings])).toEqual([['sale', ana.id, 700]]);
  });

  test("a partner's lead and sale count in analytics as a plain link's do (their rollups are written last in the transaction)", async () => {
    const api = await programWith([
      { event: 'lead', type: 'flat', amount: 500 },
      { event: 'sale', type: 'flat', amount: 150 },
    ]);
    const ana = await api.partner('Ana');
    const plainPath = await api.plainLink();
    await api.lead(await api.click(ana.linkPath), 'p-1');
    await api.sale('p-1', 2500);
    await api.lead(await api.click(plainPath), 'q-1');
    await api.sale('q-1', 700);
    expect((await api.commissions()).map((c) => [c.type, c.partnerId])).toEqual([
      ['lead', ana.id],
      ['sale', ana.id],
    ]);
    const groups = async (query: string) =>
      ((await api.ok('GET', `/api/analytics?take=100${query}`)) as Record<string, unknown>[]).map((g) => [
        g.key,
        g.clicks,
        g.leads,
        g.sales,
        g.saleAmount,
        g.revenue,
      ]);
    const links = await api.ok('GET', '/api/links?take=100');
    const linkOf = (path: string) => links.find((l: { shortUrl: string }) => new URL(l.shortUrl).pathname === path).id;
    expect((await groups('&groupBy=partner')).sort()).toEqual(
      [
        [ana.id, 1, 1, 1, 2500, { usd: 2500 }],
        ['(none)', 1, 1, 1, 700, { usd: 700 }],
      ].sort(),
    );
    expect((await groups('&groupBy=link')).sort()).toEqual(
      [
        [linkOf(ana.linkPath), 1, 1, 1, 2500, { usd: 2500 }],
        [linkOf(plainPath), 1, 1, 1, 700, { usd: 700 }],
      ].sort(),
    );
    // Today's events are answered from raw rows at the edges: the rollup tables themselves, a link each.
    const ws = api.ws.id;
    const [partnerLink, plainLink] = [linkOf(ana.linkPath), linkOf(plainPath)];
    const days = await rows<{ link: string; leads: number; sales: number }>(
      t.database.db,
      sql`SELECT link_id::text AS link, sum(leads)::int AS leads, sum(sales)::int AS sales FROM link_daily_stats WHERE workspace_id = ${ws}::uuid GROUP BY 1`,
    );
    expect(Object.fromEntries(days.map((d) => [d.link, [d.leads, d.sales]]))).toEqual({ [partnerLink]: [1, 1], [plainLink]: [1, 1] });
    const money = await rows<{ link: string; amount: number }>(
      t.database.db,
      sql`SELECT link_id::text AS link, sum(amount)::int AS amount FROM link_daily_revenue WHERE workspace_id = ${ws}::uuid GROUP BY 1`,
    );
    expect(Object.fromEntries(money.map((d) => [d.link, d.amount]))).toEqual({ [partnerLink]: 2500, [plainLink]: 700 });
    // Each link's totals by day and hour, under its partner (nobody's: the zero id); the workspace's every dimension counts both.
    const linkTotals = await rows<{ link: string; partner: string; level: string; leads: number; sales: number; amount: number }>(
      t.database.db,
      sql`SELECT scope_id::text AS link, partner_id::text AS partner, level::text AS level, sum(leads)::int AS leads, sum(sales)::int AS sales,
            sum(amount)::int AS amount FROM analytics_rollups WHERE workspace_id = ${ws}::uuid AND scope_id <> workspace_id AND dim = '' GROUP BY 1, 2, 3`,
    );
    const nobody = '00000000-0000-0000-0000-000000000000';
    const sorted = <T>(xs: T[]) => xs.map((x) => JSON.stringify(x)).sort();
    expect(sorted(linkTotals.map((r) => [r.link, r.partner, r.level, r.leads, r.sales, r.amount]))).toEqual(
      sorted(
        ['d', 'h'].flatMap((level) => [
          [partnerLink, ana.id, level, 1, 1, 2500],
          [plainLink, nobody, level, 1, 1, 700],
        ]),
      ),
    );
    const [everyDim] = await rows<{ off: number }>(
      t.database.db,
      sql`SELECT count(*)::int AS off FROM (SELECT dim, level FROM analytics_rollups WHERE workspace_id = ${ws}::uuid AND scope_id = workspace_id
            GROUP BY 1, 2 HAVING sum(leads) <> 2 OR sum(sales) <> 2 OR sum(amount) <> 3200) x`,
    );
    expect(everyDim!.off).toBe(0);
  });

  test("who earns: the winner on later sales; another partner's named click earns for them, held as a duplicate customer; a lead on a plain link earns nothing", async () => {
    const api = await programWith([
      { event: 'lead', type: 'flat', amount: 300 },
      { event: 'sale', type: 'flat', amount: 1000 },
    ]);
    const [ana, ben] = [await api.partner('Ana'), await api.partner('Ben')];
    // Ana wins the customer with a sale on her link; a lead on a plain link then earns nobody.
    await api.sale('c', 100, { clickId: await api.click(ana.linkPath) });
    await api.lead(await api.click(await api.plainLink()), 'c');
    // A sale through the latest lead (the plain one) earns for Ana, who won them; one naming Ben's click earns for Ben, held.
    await api.sale('c', 100);
    await api.sale('c', 100, { clickId: await api.click(ben.linkPath) });
    expect((await api.commissions()).map((c) => [c.type, c.partnerId, c.status, c.holdReasons])).toEqual([
      ['sale', ana.id, 'pending', []],
      ['sale', ana.id, 'pending', []],
      ['sale', ben.id, 'held', ['duplicateCustomer']],
    ]);
  });

  test('percentages round half to even: 2.5 → 2 and 3.5 → 4', async () => {
    const api = await programWith([{ event: 'sale', type: 'percentage', amount: 500 }]);
    const ana = await api.partner();
    await api.lead(await api.click(ana.linkPath), 'c');
    await api.sale('c', 50); // 5 % of 50 = 2.5
    await api.sale('c', 70); // 5 % of 70 = 3.5
    expect((await api.commissions()).map((c) => c.earnings)).toEqual([2, 4]);
  });

  test('one lead commission per customer; the same sale posted twice earns twice; a repeated invoiceId earns nothing', async () => {
    const api = await programWith([
      { event: 'lead', type: 'flat', amount: 300 },
      { event: 'sale', type: 'flat', amount: 1000 },
    ]);
    const ana = await api.partner();
    const click = await api.click(ana.linkPath);
    await api.lead(click, 'c');
    await api.lead(click, 'c', { eventName: 'Activated' });
    await api.sale('c', 100);
    await api.sale('c', 100);
    await api.sale('c', 100, { invoiceId: 'inv-1' });
    await api.sale('c', 100, { invoiceId: 'inv-1' });
    expect((await api.commissions()).map((c) => [c.type, c.earnings])).toEqual([
      ['lead', 300],
      ['sale', 1000],
      ['sale', 1000],
      ['sale', 1000],
    ]);
  });

  test('maxDuration 0: the first sale only; conditions on metadata and event name pick the reward', async () => {
    const api = await programWith([
      { event: 'sale', type: 'flat', amount: 700, conditions: [{ field: 'metadata.plan', op: 'in', value: ['pro', 'team'] }] },
      { event: 'sale', type: 'flat', amount: 100, maxDuration: 0 },
    ]);
    const ana = await api.partner();
    await api.lead(await api.click(ana.linkPath), 'c');
    await api.sale('c', 100);
    await api.sale('c', 100);
    await api.sale('c', 100, { metadata: { plan: 'team' } });
    expect((await api.commissions()).map((c) => c.earnings)).toEqual([100, 700]);
  });

  test('a partner who is not approved earns nothing; a click on a partner link before the program earns nothing', async () => {
    const { ws, send, collectionId } = await workspaceWithCollection(t);
    const [p] = (await send('POST', '/api/partners', [{ name: 'Early' }])).json();
    const [link] = (await send('POST', '/api/links', [{ url: 'https://shop.example/', collectionId, partnerId: p.id }])).json();
    const res = await t.inject({ method: 'GET', url: new URL(link.shortUrl).pathname, headers: { 'user-agent': DESKTOP } });
    const click = new URL(res.headers.location as string).searchParams.get('ltid')!;
    const before = await send('POST', '/api/track/lead', { clickId: click, eventName: 'Sign up', customerExternalId: 'early', customerName: 'E' });
    expect(before.statusCode, before.body).toBe(200);
    expect(ws.id).toBeTruthy();
    const program = await send('PUT', '/api/program', {
      name: 'Late',
      slug: `l-${randomUUID().slice(0, 8)}`,
      landingUrl: 'https://shop.example/',
      currency: 'usd',
    });
    expect(program.statusCode, program.body).toBe(200);
    expect((await send('GET', '/api/commissions')).json()).toEqual([]);
  });

  test('custom commissions are payable at once; held ones are released or reversed; other moves fail naming the index', async () => {
    const api = await programWith([{ event: 'lead', type: 'flat', amount: 300 }]);
    const ana = await api.partner();
    const [bonus, clawback] = await api.ok(
      'POST',
      '/api/commissions',
      [
        { partnerId: ana.id, earnings: 2500, currency: 'eur', description: 'Launch bonus' },
        { partnerId: ana.id, earnings: -100, currency: 'usd', description: 'Correction' },
      ],
      201,
    );
    expect([bonus.type, bonus.status, bonus.earnings, bonus.currency, clawback.earnings]).toEqual(['custom', 'payable', 2500, 'eur', -100]);
    const [reversed] = await api.ok('PATCH', '/api/commissions', [{ id: bonus.id, status: 'reversed' }]);
    expect([reversed.status, reversed.reversedReason]).toEqual(['reversed', 'manual']);
    const refused = await api.send('PATCH', '/api/commissions', [
      { id: clawback.id, status: 'reversed' },
      { id: bonus.id, status: 'pending' },
    ]);
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().field).toBe('[1].status');
    expect((await api.commissions(`&status=payable`)).map((c) => c.id)).toEqual([clawback.id]);
    const unknown = await api.send('POST', '/api/commissions', [{ partnerId: randomUUID(), earnings: 1, currency: 'usd', description: 'x' }]);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().field).toBe('[0].partnerId');
  });
});

describe('refunds', () => {
  test('a commission follows its sale net of refunds, from what it first earned; a whole refund reverses it; bad refunds are 400', async () => {
    const api = await programWith([{ event: 'sale', type: 'percentage', amount: 1000 }]);
    const ana = await api.partner();
    await api.lead(await api.click(ana.linkPath), 'c');
    const sale = await api.sale('c', 10005, { invoiceId: 'inv-9' }); // 10 % of 100.05 = 10.005 → 1000 (half to even)
    const refund = (body: unknown) => api.send('POST', '/api/track/refund', body);
    const earnings = async () => (await api.commissions()).map((c) => [c.earnings, c.status, c.reversedReason]);
    expect(await earnings()).toEqual([[1000, 'pending', null]]);
    const first = await refund({ saleId: sale.id, refundedAmount: 5 });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ id: sale.id, amount: 10005, refundedAmount: 5 });
    // 1000 × 10000 / 10005 = 999.5002… → 1000
    expect(await earnings()).toEqual([[1000, 'pending', null]]);
    expect((await refund({ invoiceId: 'inv-9', refundedAmount: 5005 })).statusCode).toBe(200);
    // 1000 × 5000 / 10005 = 499.75… → 500
    expect(await earnings()).toEqual([[500, 'pending', null]]);
    for (const [body, field] of [
      [{ saleId: sale.id, refundedAmount: 10006 }, 'refundedAmount'],
      [{ saleId: sale.id, refundedAmount: 100 }, 'refundedAmount'],
      [{ saleId: sale.id, invoiceId: 'inv-9', refundedAmount: 6000 }, 'saleId'],
      [{ invoiceId: 'nope', refundedAmount: 1 }, 'invoiceId'],
      [{ saleId: randomUUID(), refundedAmount: 1 }, 'saleId'],
    ] as const) {
      const res = await refund(body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().field).toBe(field);
      expect(res.json().error.ar).toMatch(/[\u0600-\u06ff]/);
    }
    expect((await refund({ saleId: sale.id, refundedAmount: 10005 })).statusCode).toBe(200);
    expect(await earnings()).toEqual([[0, 'reversed', 'refund']]);
    const totals = (await api.ok('GET', '/api/analytics?groupBy=link')) as { saleAmount: number }[];
    expect(totals.reduce((n, g) => n + g.saleAmount, 0)).toBe(0);
  });
});
