/**
 * POST /api/track/sale over HTTP (api.md "Conversion tracking", "Conversion inputs";
 * operations.md §4): amount in minor units, currency (lowercase ISO 4217, default usd),
 * eventName (default Purchase), the customer fields, metadata, the attribution order
 * leadEventName → clickId → most recent lead (400 when nothing attributes), a new event on
 * every accepted call, the scope, isolation between workspaces, and a property: only 200 or
 * 400, and a 400 writes nothing.
 *
 * Clicks come from visiting short links (the 302's Location carries `ltid=<clickId>`). Events
 * are counted through GET /api/analytics?groupBy=link and customers through GET /api/customers.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ISO, UUID, clientWithClick, conversionClient, expect400, mutatedBodies, type Body, type ConversionApi, type SaleEvent } from './helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

/** A fresh workspace with a collection, used the way a client would. */
const client = () => conversionClient(t);

type Api = ConversionApi;

/** A workspace with one link and one fresh click: the usual starting point. */
const withClick = () => clientWithClick(t);

/** A lead body for `clickId` (the customer is user-1 unless told). */
const leadBody = (clickId: string, extra: Body = {}): Body => ({
  clickId,
  eventName: 'Sign up',
  customerExternalId: 'user-1',
  customerName: 'Ada Lovelace',
  ...extra,
});

/** A sale body for user-1 (no attribution field unless told). */
const saleBody = (extra: Body = {}): Body => ({
  customerExternalId: 'user-1',
  customerName: 'Ada Lovelace',
  amount: 4999,
  ...extra,
});

/** Sends each body; every one must fail with 400 (naming `field` when given), and none may write anything. */
async function expectRejected(api: Api, bodies: unknown[], field?: string) {
  const before = await api.state();
  for (const body of bodies) expect400(await api.sale(body), field);
  expect(await api.state()).toEqual(before);
}

describe('POST /api/track/sale: the event', () => {
  it('answers 200 with the event, defaults eventName Purchase and currency usd, and upserts the customer', async () => {
    const { api, link, clickId } = await withClick();
    const res = await api.sale(saleBody({ clickId, customerEmail: 'ada@example.com', customerAvatar: 'https://cdn.example.com/ada.png' }));
    expect(res.statusCode, res.body).toBe(200);
    const event = res.json<SaleEvent>();
    expect(Object.keys(event).sort()).toEqual([
      'amount',
      'clickId',
      'createdAt',
      'currency',
      'customer',
      'eventName',
      'id',
      'leadId',
      'linkId',
      'metadata',
      'source',
    ]);
    expect(event).toMatchObject({
      eventName: 'Purchase',
      amount: 4999,
      currency: 'usd',
      clickId,
      linkId: link.id,
      leadId: null,
      metadata: null,
    });
    expect(event.id).toMatch(UUID);
    expect(event.createdAt).toMatch(ISO);
    expect(Object.keys(event.customer).sort()).toEqual(['avatar', 'createdAt', 'email', 'externalId', 'id', 'name', 'partnerId', 'updatedAt']);
    expect(event.customer).toMatchObject({
      externalId: 'user-1',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      avatar: 'https://cdn.example.com/ada.png',
    });
    expect(await api.customers()).toEqual([event.customer]);
    expect(await api.totals()).toEqual({ leads: 0, sales: 1, saleAmount: 4999 });
  });

  it('records a new event on every accepted call, retries included, reusing the customer', async () => {
    const { api, clickId } = await withClick();
    const body = saleBody({ clickId, amount: 1000, metadata: { order: 'A-1' } });
    const first = await api.okSale(body);
    const second = await api.okSale(body);
    expect(second.id).not.toBe(first.id);
    expect(second.customer.id).toBe(first.customer.id);
    expect(await api.totals()).toEqual({ leads: 0, sales: 2, saleAmount: 2000 });
    expect(await api.customers()).toHaveLength(1);
  });

  it('eventName: optional (default Purchase), at most 255 characters', async () => {
    const { api, clickId } = await withClick();
    expect((await api.okSale(saleBody({ clickId }))).eventName).toBe('Purchase');
    expect((await api.okSale(saleBody({ clickId, eventName: 'Upgrade' }))).eventName).toBe('Upgrade');
    expect((await api.okSale(saleBody({ clickId, eventName: 'e'.repeat(255) }))).eventName).toBe('e'.repeat(255));
    await expectRejected(
      api,
      [saleBody({ clickId, eventName: 'e'.repeat(256) }), saleBody({ clickId, eventName: 5 }), saleBody({ clickId, eventName: null })],
      'eventName',
    );
  });

  it('metadata: an object stored with the event; anything else is a 400', async () => {
    const { api, clickId } = await withClick();
    const metadata = { order: 'A-17', items: [{ sku: 'X', qty: 2 }], coupon: null, gift: false };
    expect((await api.okSale(saleBody({ clickId, metadata }))).metadata).toEqual(metadata);
    expect((await api.okSale(saleBody({ clickId, metadata: null }))).metadata).toBeNull();
    await expectRejected(
      api,
      [saleBody({ clickId, metadata: [metadata] }), saleBody({ clickId, metadata: 'x' }), saleBody({ clickId, metadata: 1 })],
      'metadata',
    );
  });
});

describe('POST /api/track/sale: amount and currency', () => {
  it('amount: a required non-negative integer in minor units', async () => {
    const { api, clickId } = await withClick();
    expect((await api.okSale(saleBody({ clickId, amount: 0 }))).amount).toBe(0);
    expect((await api.okSale(saleBody({ clickId, amount: 1 }))).amount).toBe(1);
    expect((await api.okSale(saleBody({ clickId, amount: 123_456_789_012 }))).amount).toBe(123_456_789_012);
    expect(await api.totals()).toEqual({ leads: 0, sales: 3, saleAmount: 123_456_789_013 });
    const { amount: _omit, ...without } = saleBody({ clickId });
    await expectRejected(
      api,
      [
        saleBody({ clickId, amount: 1.5 }),
        saleBody({ clickId, amount: -1 }),
        saleBody({ clickId, amount: '5' }),
        saleBody({ clickId, amount: null }),
        saleBody({ clickId, amount: true }),
        without,
      ],
      'amount',
    );
  });

  it('currency: a lowercase ISO 4217 code from the real list, default usd', async () => {
    const { api, clickId } = await withClick();
    expect((await api.okSale(saleBody({ clickId }))).currency).toBe('usd');
    for (const code of ['usd', 'eur', 'jpy', 'gbp', 'chf', 'kwd']) {
      expect((await api.okSale(saleBody({ clickId, currency: code }))).currency).toBe(code);
    }
    await expectRejected(
      api,
      ['EUR', 'Usd', 'xyz', 'abc', 'us', 'usdx', '', ' usd', 5, null].map((currency) => saleBody({ clickId, currency })),
      'currency',
    );
  });
});

describe('POST /api/track/sale: customer fields', () => {
  it('customerExternalId: required, 1 to 100 characters', async () => {
    const { api, clickId } = await withClick();
    expect((await api.okSale(saleBody({ clickId, customerExternalId: 'c'.repeat(100) }))).customer.externalId).toBe('c'.repeat(100));
    const { customerExternalId: _omit, ...without } = saleBody({ clickId });
    await expectRejected(
      api,
      [
        saleBody({ clickId, customerExternalId: '' }),
        saleBody({ clickId, customerExternalId: 'c'.repeat(101) }),
        saleBody({ clickId, customerExternalId: 1 }),
        without,
      ],
      'customerExternalId',
    );
  });

  it('customerName: required, at most 100 characters', async () => {
    const { api, clickId } = await withClick();
    expect((await api.okSale(saleBody({ clickId, customerName: 'n'.repeat(100) }))).customer.name).toBe('n'.repeat(100));
    const { customerName: _omit, ...without } = saleBody({ clickId, customerExternalId: 'other' });
    await expectRejected(
      api,
      [
        saleBody({ clickId, customerExternalId: 'other', customerName: 'n'.repeat(101) }),
        saleBody({ clickId, customerExternalId: 'other', customerName: null }),
        without,
      ],
      'customerName',
    );
  });

  it('customerEmail and customerAvatar: an email and an https URL; null clears, omitted keeps', async () => {
    const { api, clickId } = await withClick();
    const set = await api.okSale(saleBody({ clickId, customerEmail: 'ada@example.com', customerAvatar: 'https://cdn.example.com/ada.png' }));
    expect(set.customer).toMatchObject({ email: 'ada@example.com', avatar: 'https://cdn.example.com/ada.png' });
    expect((await api.okSale(saleBody({ clickId }))).customer).toMatchObject({ email: 'ada@example.com', avatar: 'https://cdn.example.com/ada.png' });
    await expectRejected(api, [saleBody({ clickId, customerEmail: 'nope' }), saleBody({ clickId, customerEmail: `${'a'.repeat(95)}@b.com` })], 'customerEmail');
    await expectRejected(
      api,
      [saleBody({ clickId, customerAvatar: 'http://cdn.example.com/a.png' }), saleBody({ clickId, customerAvatar: 'nope' })],
      'customerAvatar',
    );
    const cleared = await api.okSale(saleBody({ clickId, customerEmail: null, customerAvatar: null }));
    expect(cleared.customer).toMatchObject({ id: set.customer.id, email: null, avatar: null });
    expect(await api.customers()).toEqual([cleared.customer]);
  });
});

describe('POST /api/track/sale: attribution (leadEventName → clickId → most recent lead)', () => {
  it('leadEventName attributes the sale to the customer’s lead of that name, over a clickId', async () => {
    const api = await client();
    const [l1, l2, l3] = [await api.link(), await api.link(), await api.link()];
    const [c1, c2, c3] = [await api.click(l1), await api.click(l2), await api.click(l3)];
    const signup = await api.okLead(leadBody(c1, { eventName: 'Sign up' }));
    await api.okLead(leadBody(c2, { eventName: 'Trial' }));
    const sale = await api.okSale(saleBody({ leadEventName: 'Sign up', clickId: c3 }));
    expect(sale).toMatchObject({ leadId: signup.id, clickId: c1, linkId: l1.id, customer: { id: signup.customer.id } });
  });

  it('leadEventName picks the most recent lead of that name', async () => {
    const api = await client();
    const [l1, l2] = [await api.link(), await api.link()];
    const [c1, c2] = [await api.click(l1), await api.click(l2)];
    await api.okLead(leadBody(c1, { eventName: 'Sign up' }));
    const later = await api.okLead(leadBody(c2, { eventName: 'Sign up' }));
    await api.okLead(leadBody(c1, { eventName: 'Other' }));
    expect(await api.okSale(saleBody({ leadEventName: 'Sign up' }))).toMatchObject({ leadId: later.id, clickId: c2, linkId: l2.id });
  });

  it('an unknown leadEventName is a 400, even with a valid clickId, and writes nothing', async () => {
    const { api, clickId } = await withClick();
    await api.okLead(leadBody(clickId, { eventName: 'Sign up' }));
    // Another customer's lead name does not count for this one.
    await api.okLead(leadBody(clickId, { eventName: 'Webinar', customerExternalId: 'someone-else' }));
    await expectRejected(api, [
      saleBody({ leadEventName: 'Never happened' }),
      saleBody({ leadEventName: 'Never happened', clickId }),
      saleBody({ leadEventName: 'sign up' }),
      saleBody({ leadEventName: 'Webinar' }),
    ]);
  });

  it('without leadEventName, a clickId attributes the sale directly (no lead), over the most recent lead', async () => {
    const api = await client();
    const [l1, l2] = [await api.link(), await api.link()];
    const [c1, c2] = [await api.click(l1), await api.click(l2)];
    await api.okLead(leadBody(c1));
    expect(await api.okSale(saleBody({ clickId: c2 }))).toMatchObject({ clickId: c2, linkId: l2.id, leadId: null });
  });

  it('otherwise the customer’s most recent lead (clickId omitted or "")', async () => {
    const api = await client();
    const [l1, l2] = [await api.link(), await api.link()];
    const [c1, c2] = [await api.click(l1), await api.click(l2)];
    await api.okLead(leadBody(c1, { eventName: 'Sign up' }));
    const latest = await api.okLead(leadBody(c2, { eventName: 'Demo booked' }));
    const byLatest = { leadId: latest.id, clickId: c2, linkId: l2.id, customer: { id: latest.customer.id } };
    expect(await api.okSale(saleBody())).toMatchObject(byLatest);
    expect(await api.okSale(saleBody({ clickId: '' }))).toMatchObject(byLatest);
    expect(await api.totals()).toEqual({ leads: 2, sales: 2, saleAmount: 9998 });
  });

  it('nothing to attribute to (no lead, no clickId) is a 400 that creates no customer', async () => {
    const { api, clickId } = await withClick();
    await api.okLead(leadBody(clickId, { customerExternalId: 'has-a-lead' }));
    await expectRejected(api, [saleBody({ customerExternalId: 'newcomer' }), saleBody({ customerExternalId: 'newcomer', clickId: '' })]);
    expect((await api.customers()).map((c) => c.externalId)).toEqual(['has-a-lead']);
  });

  it('an unknown clickId, or one that is not a click id, is a 400', async () => {
    const { api } = await withClick();
    await expectRejected(api, [saleBody({ clickId: randomUUID() })]);
    await expectRejected(api, [saleBody({ clickId: 'not-a-click' }), saleBody({ clickId: 5 }), saleBody({ clickId: null })]);
  });
});

describe('POST /api/track/sale: scope and workspaces', () => {
  it('needs conversionsWrite (403 missing_scopes, nothing written); that scope alone is enough', async () => {
    const { api, clickId } = await withClick();
    const { key: without } = await api.ws.newKey(['customersRead', 'customersWrite', 'analyticsRead']);
    const before = await api.state();
    const denied = await api.sale(saleBody({ clickId }), without);
    expect(denied.statusCode, denied.body).toBe(403);
    expect(denied.json()).toMatchObject({ error: { code: 'missing_scopes' }, missingScopes: ['conversionsWrite'] });
    expect(await api.state()).toEqual(before);
    const { key: only } = await api.ws.newKey(['conversionsWrite']);
    expect((await api.sale(saleBody({ clickId }), only)).statusCode).toBe(200);
  });

  it('another workspace’s click id is a 400; nothing is written in either workspace', async () => {
    const a = await withClick();
    const b = await withClick();
    const beforeB = await b.api.state();
    await expectRejected(a.api, [saleBody({ clickId: b.clickId })]);
    expect(await b.api.state()).toEqual(beforeB);
  });

  it('leads of another workspace never attribute a sale, by name or as the most recent lead', async () => {
    const a = await withClick();
    const b = await withClick();
    await a.api.okLead(leadBody(a.clickId, { eventName: 'Sign up' }));
    await expectRejected(b.api, [saleBody(), saleBody({ leadEventName: 'Sign up' })]);
    // With its own click, B's sale is B's: its own customer, its own link.
    const sale = await b.api.okSale(saleBody({ clickId: b.clickId }));
    expect(sale.linkId).toBe(b.link.id);
    expect((await a.api.customers()).map((c) => c.id)).not.toContain(sale.customer.id);
    expect(await a.api.totals()).toEqual({ leads: 1, sales: 0, saleAmount: 0 });
  });
});

describe('POST /api/track/sale: property', () => {
  it('answers only 200 or 400; a 200 records exactly one sale of its amount, a 400 writes nothing', async () => {
    const api = await client();
    const other = await client();
    const link = await api.link();
    const clickId = await api.click(link);
    const foreignClick = await other.click(await other.link());
    const lead = await api.okLead(leadBody(clickId, { customerExternalId: 'known', eventName: 'Sign up' }));
    let fresh = 0;

    const nasty = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.constantFrom('', ' ', '\u0000', 'a\ud800', '💥'.repeat(60), "'; DROP TABLE sale_events; --"),
      fc.nat({ max: 300 }).map((n) => 'x'.repeat(n)),
    );
    const anyJson = fc.jsonValue({ maxDepth: 2 });
    const valid = fc.record(
      {
        customerExternalId: fc.oneof(
          { weight: 4, arbitrary: fc.constant('known') },
          { weight: 1, arbitrary: fc.constant('other') },
          { weight: 1, arbitrary: fc.nat().map(() => `fresh-${fresh++}`) },
        ),
        customerName: fc.string({ maxLength: 20 }),
        amount: fc.oneof(fc.nat({ max: 1_000_000 }), fc.constantFrom(0, 10 ** 12)),
        currency: fc.constantFrom('usd', 'eur', 'jpy', 'bhd'),
        eventName: fc.string({ minLength: 1, maxLength: 20 }),
        leadEventName: fc.constantFrom('Sign up', 'Sign up', 'Sign up', 'Nope'),
        clickId: fc.constantFrom(clickId, clickId, ''),
        customerEmail: fc.constantFrom('a@b.co', null),
        customerAvatar: fc.constantFrom('https://cdn.example.com/a.png', null),
        metadata: fc.oneof(fc.object({ maxDepth: 2 }), fc.constant(null)),
      },
      { requiredKeys: ['customerExternalId', 'customerName', 'amount'] },
    );
    const wrong = fc.oneof(
      fc.constant(undefined),
      nasty,
      anyJson,
      fc.constant(foreignClick),
      fc.constantFrom(-1, 1.5, '5', 1e20, 10 ** 12 + 1, Number.MAX_SAFE_INTEGER + 1, 'USD', 'xyz', 'not-an-email', 'http://cdn.example.com/a.png'),
    );
    const field = fc.constantFrom(
      'customerExternalId',
      'customerName',
      'amount',
      'currency',
      'eventName',
      'leadEventName',
      'clickId',
      'customerEmail',
      'customerAvatar',
      'metadata',
    );
    const body = mutatedBodies(valid, field, wrong, anyJson);

    await fc.assert(
      fc.asyncProperty(body, async (input) => {
        const expected = await api.state();
        const res = await api.sale(input);
        expect([200, 400], res.body).toContain(res.statusCode);
        const after = await api.state();
        if (res.statusCode === 400) {
          expect(res.json<{ error: { code: string } }>().error.code).toMatch(/^(invalid_field|malformed_json)$/);
          expect(after).toEqual(expected);
        } else {
          const event = res.json<SaleEvent>();
          expect(event.amount).toBe(input.amount);
          expect(event.currency).toBe(input.currency ?? 'usd');
          expect(event.eventName).toBe(input.eventName ?? 'Purchase');
          expect(event.customer.externalId).toBe(input.customerExternalId);
          expect(event.clickId).toBe(clickId);
          expect(event.leadId).toBe(input.leadEventName !== undefined || input.clickId === undefined || input.clickId === '' ? lead.id : null);
          expect(event.metadata).toEqual(input.metadata === undefined ? null : JSON.parse(JSON.stringify(input.metadata)));
          expect(after.totals).toEqual({
            leads: expected.totals.leads,
            sales: expected.totals.sales + 1,
            saleAmount: expected.totals.saleAmount + (input.amount as number),
          });
          expect(after.customers.filter((c) => c.id !== event.customer.id)).toEqual(expected.customers.filter((c) => c.id !== event.customer.id));
          expect(after.customers.filter((c) => c.externalId === event.customer.externalId)).toEqual([event.customer]);
        }
      }),
      { numRuns: 60 },
    );
    expect(await other.totals()).toEqual({ leads: 0, sales: 0, saleAmount: 0 });
  });
});
