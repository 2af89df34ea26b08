/**
 * Coupon codes (operations.md §18 "Coupon codes"), through HTTP as a client would: a sale naming
 * a partner's code records a click on the partner's default link (trigger coupon, counted
 * nowhere as a click), a lead `Coupon` for a new customer, and earns for the partner; the
 * attribution order is leadEventName, clickId, couponCode, the latest lead; a code nobody holds
 * is ignored; a later sale without the code follows the customer to the partner.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { DESKTOP } from '../../helpers/visitors.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

interface Commission {
  partnerId: string;
  type: string;
  saleAmount: number | null;
  earnings: number;
  status: string;
  holdReasons: string[];
}

/** A program paying 10 % of sales and 200 per lead; partners made approved, their default link awaited. */
async function couponProgram() {
  const { ws, send, collectionId } = await workspaceWithCollection(t);
  const ok = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, status = 200) => {
    const res = await send(method, url, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
    return res.json();
  };
  await ok('PUT', '/api/program', { name: 'Friends', slug: `c-${randomUUID().slice(0, 8)}`, landingUrl: 'https://shop.example/', currency: 'usd' });
  const [group] = await ok('GET', '/api/partner-groups');
  await ok('PUT', '/api/partner-groups', [
    {
      id: group.id,
      rewards: [
        { event: 'lead', type: 'flat', amount: 200 },
        { event: 'sale', type: 'percentage', amount: 1000 },
      ],
    },
  ]);
  return {
    ws,
    ok,
    async partner(name: string, couponCodes: string[]) {
      const [p] = await ok('POST', '/api/partners', [{ name, couponCodes }], 201);
      const withLink = await defaultLinkOf(ok, p.id);
      return { id: p.id as string, defaultLinkId: withLink };
    },
    sale: (customer: string, amount: number, extra: Record<string, unknown> = {}) =>
      ok('POST', '/api/track/sale', { customerExternalId: customer, customerName: 'Cam Buyer', amount, currency: 'usd', ...extra }),
    commissions: (): Promise<Commission[]> => ok('GET', '/api/commissions?sort=asc'),
    async clickPath(partnerId: string) {
      const [link] = await ok('POST', '/api/links', [{ url: 'https://shop.example/x', collectionId, partnerId }], 201);
      const res = await t.inject({ method: 'GET', url: new URL(link.shortUrl).pathname, remoteAddress: '81.2.69.160', headers: { 'user-agent': DESKTOP } });
      expect(res.statusCode).toBe(302);
      return { clickId: new URL(res.headers.location as string).searchParams.get('ltid')!, linkId: link.id as string };
    },
  };
}

/** The partner's default link, made when they were approved (the partner record names it once it exists). */
async function defaultLinkOf(ok: (m: 'GET', u: string) => Promise<{ id: string; defaultLinkId: string | null }[]>, partnerId: string): Promise<string> {
  let found: string | null = null;
  await expect
    .poll(async () => {
      found = (await ok('GET', `/api/partners?take=100`)).find((p) => p.id === partnerId)?.defaultLinkId ?? null;
      return found;
    })
    .not.toBeNull();
  return found!;
}

/** The stored clicks of a link, bot flag and trigger included (what no API lists). */
function storedClicks(workspaceId: string, linkId: string) {
  return rows<{ partnerId: string; bot: boolean; trigger: string }>(
    t.database.db,
    sql`SELECT partner_id AS "partnerId", bot, trigger FROM clicks WHERE workspace_id = ${workspaceId}::uuid AND link_id = ${linkId}::uuid`,
  );
}

describe('coupon codes in POST /api/track/sale', () => {
  test("a partner's code: a coupon click on their default link counted nowhere, a Coupon lead for the new customer, the sale earns for them; later sales follow", async () => {
    const api = await couponProgram();
    const ana = await api.partner('Ana', ['SPRING10']);
    const sale = await api.sale('cust-1', 5000, { couponCode: 'spring10' });
    expect(sale.linkId).toBe(ana.defaultLinkId);
    const [customer] = await api.ok('GET', '/api/customers?externalId=cust-1');
    expect(customer.partnerId).toBe(ana.id);
    expect(await storedClicks(api.ws.id, ana.defaultLinkId)).toEqual([{ partnerId: ana.id, bot: true, trigger: 'coupon' }]);
    const events = await api.ok('GET', `/api/events?linkId=${ana.defaultLinkId}&sort=asc`);
    expect(events.map((e: { type: string; eventName: string; customerExternalId: string }) => [e.type, e.eventName, e.customerExternalId])).toEqual([
      ['lead', 'Coupon', 'cust-1'],
      ['sale', 'Purchase', 'cust-1'],
    ]);
    // Counted nowhere as a click: the link's analytics show the lead and the sale under trigger coupon, and no click.
    const byTrigger = await api.ok('GET', `/api/analytics?linkId=${ana.defaultLinkId}&groupBy=trigger`);
    expect(byTrigger.map((r: { key: string; clicks: number; leads: number; sales: number }) => [r.key, r.clicks, r.leads, r.sales])).toEqual([
      ['coupon', 0, 1, 1],
    ]);
    expect(await api.ok('GET', `/api/analytics?linkId=${ana.defaultLinkId}`)).toEqual([]);
    // A later sale without the code follows the customer's latest lead (the coupon's) to Ana.
    await api.sale('cust-1', 3000);
    expect((await api.commissions()).map((c) => [c.type, c.partnerId, c.saleAmount, c.earnings, c.status])).toEqual([
      ['sale', ana.id, 5000, 500, 'pending'],
      ['sale', ana.id, 3000, 300, 'pending'],
    ]);
  });

  test('the order: leadEventName and clickId come before the code; the code before the latest lead; a code nobody holds is ignored', async () => {
    const api = await couponProgram();
    const [ana, ben] = [await api.partner('Ana', ['ANA5']), await api.partner('Ben', ['BEN5'])];
    // Ben's click names the sale: the code of Ana does not change it.
    const { clickId } = await api.clickPath(ben.id);
    const named = await api.sale('c', 1000, { clickId, couponCode: 'ANA5' });
    expect(named.linkId).not.toBe(ana.defaultLinkId);
    // Then Ana's code, for the same (known) customer: no new lead, a coupon click, earning held as a duplicate customer.
    const byCode = await api.sale('c', 2000, { couponCode: 'ana5' });
    expect(byCode.linkId).toBe(ana.defaultLinkId);
    const eventsOfAna = await api.ok('GET', `/api/events?linkId=${ana.defaultLinkId}`);
    expect(eventsOfAna.map((e: { type: string }) => e.type)).toEqual(['sale']);
    // A code nobody holds is ignored: the latest lead decides (none for a new customer: 400 as api.md says).
    const unknown = await t.inject({
      method: 'POST',
      url: '/api/track/sale',
      headers: { authorization: `Bearer ${api.ws.key}` },
      payload: { customerExternalId: 'new-one', customerName: 'N', amount: 100, couponCode: 'NOPE' },
    });
    expect(unknown.statusCode, unknown.body).toBe(400);
    expect([unknown.json().field, unknown.json().reason]).toEqual(['customerExternalId', 'no_previous_lead']);
    expect((await api.commissions()).map((c) => [c.partnerId, c.saleAmount, c.earnings, c.status, c.holdReasons])).toEqual([
      [ben.id, 1000, 100, 'pending', []],
      [ana.id, 2000, 200, 'held', ['duplicateCustomer']],
    ]);
  });

  test('a code longer than 190 characters is a 400 naming couponCode', async () => {
    const api = await couponProgram();
    const res = await t.inject({
      method: 'POST',
      url: '/api/track/sale',
      headers: { authorization: `Bearer ${api.ws.key}` },
      payload: { customerExternalId: 'x', customerName: 'N', amount: 100, couponCode: 'x'.repeat(191) },
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json().error)).toContain('couponCode');
  });
});
