/**
 * POST /api/track/lead over HTTP (api.md "Conversion tracking", "Conversion inputs";
 * operations.md §4): every field rule, attribution to a click of the caller's workspace,
 * deferred tracking (clickId ""), a new event on every accepted call, the scope, isolation
 * between workspaces, and a property: only 200 or 400, and a 400 writes nothing.
 *
 * Clicks come from visiting short links (the 302's Location carries `ltid=<clickId>`). Events
 * are counted through GET /api/analytics?groupBy=link and customers through GET /api/customers.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { ISO, UUID, clientWithClick, conversionClient, expect400, mutatedBodies, type Body, type ConversionApi, type LeadEvent } from './helpers.js';

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

const base = (clickId: string, extra: Body = {}): Body => ({
  clickId,
  eventName: 'Sign up',
  customerExternalId: 'user-1',
  customerName: 'Ada Lovelace',
  ...extra,
});

/** Sends each body; every one must fail with 400 naming `field`, and none may write anything. */
async function expectRejected(api: Api, bodies: unknown[], field?: string) {
  const before = await api.state();
  for (const body of bodies) expect400(await api.lead(body), field);
  expect(await api.state()).toEqual(before);
}

describe('POST /api/track/lead: the event', () => {
  it('answers 200 with the event attributed to the click and its link, and upserts the customer', async () => {
    const { api, link, clickId } = await withClick();
    const metadata = { plan: 'pro', seats: 3, tags: ['a', 'b'], nested: { ok: true, none: null } };
    const res = await api.lead(
      base(clickId, {
        customerEmail: 'ada@example.com',
        customerAvatar: 'https://cdn.example.com/ada.png',
        metadata,
      }),
    );
    expect(res.statusCode, res.body).toBe(200);
    const event = res.json<LeadEvent>();
    expect(Object.keys(event).sort()).toEqual(['clickId', 'createdAt', 'customer', 'eventName', 'id', 'linkId', 'metadata', 'source']);
    expect(event).toMatchObject({ eventName: 'Sign up', clickId, linkId: link.id, metadata, source: 'server' });
    expect(event.id).toMatch(UUID);
    expect(event.id).not.toBe(clickId);
    expect(event.createdAt).toMatch(ISO);
    expect(Object.keys(event.customer).sort()).toEqual(['avatar', 'createdAt', 'email', 'externalId', 'id', 'name', 'partnerId', 'updatedAt']);
    expect(event.customer).toMatchObject({
      externalId: 'user-1',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      avatar: 'https://cdn.example.com/ada.png',
    });
    expect(event.customer.id).toMatch(UUID);
    expect(await api.customers()).toEqual([event.customer]);
    expect(await api.totals()).toEqual({ leads: 1, sales: 0, saleAmount: 0 });
  });

  it('records a new event on every accepted call, retries included, reusing the customer', async () => {
    const { api, clickId } = await withClick();
    const body = base(clickId, { metadata: { attempt: 1 } });
    const first = await api.okLead(body);
    const second = await api.okLead(body);
    const third = await api.okLead(body);
    expect(new Set([first.id, second.id, third.id]).size).toBe(3);
    expect(second.customer.id).toBe(first.customer.id);
    expect(third.customer.id).toBe(first.customer.id);
    expect(await api.totals()).toEqual({ leads: 3, sales: 0, saleAmount: 0 });
    expect(await api.customers()).toHaveLength(1);
  });

  it('accepts a click id the moment the redirect hands it out', async () => {
    const { api, link } = await withClick();
    // Several fresh clicks in a row, each used at once (they are still queued for writing).
    for (let i = 0; i < 3; i++) {
      const clickId = await api.click(link);
      const event = await api.okLead(base(clickId, { customerExternalId: `fresh-${i}` }));
      expect(event).toMatchObject({ clickId, linkId: link.id });
    }
  });

  it('metadata is optional: omitted or null gives null', async () => {
    const { api, clickId } = await withClick();
    expect((await api.okLead(base(clickId))).metadata).toBeNull();
    expect((await api.okLead(base(clickId, { metadata: null }))).metadata).toBeNull();
    expect((await api.okLead(base(clickId, { metadata: {} }))).metadata).toEqual({});
  });

  it('ignores unknown properties', async () => {
    const { api, clickId } = await withClick();
    const event = await api.okLead(base(clickId, { amount: 5, idempotencyKey: 'x' }));
    expect(event).not.toHaveProperty('amount');
    expect(event).not.toHaveProperty('idempotencyKey');
  });
});

describe('POST /api/track/lead: field rules', () => {
  it('eventName: required string of 1 to 255 characters', async () => {
    const { api, clickId } = await withClick();
    expect((await api.okLead(base(clickId, { eventName: 'x' }))).eventName).toBe('x');
    expect((await api.okLead(base(clickId, { eventName: 'e'.repeat(255) }))).eventName).toBe('e'.repeat(255));
    const { eventName: _omit, ...without } = base(clickId);
    await expectRejected(
      api,
      [
        base(clickId, { eventName: '' }),
        base(clickId, { eventName: 'e'.repeat(256) }),
        without,
        base(clickId, { eventName: 5 }),
        base(clickId, { eventName: null }),
      ],
      'eventName',
    );
  });

  it('customerExternalId: required string of 1 to 100 characters', async () => {
    const { api, clickId } = await withClick();
    const long = 'c'.repeat(100);
    expect((await api.okLead(base(clickId, { customerExternalId: long }))).customer.externalId).toBe(long);
    expect((await api.okLead(base(clickId, { customerExternalId: 'c' }))).customer.externalId).toBe('c');
    const { customerExternalId: _omit, ...without } = base(clickId);
    await expectRejected(
      api,
      [
        base(clickId, { customerExternalId: '' }),
        base(clickId, { customerExternalId: 'c'.repeat(101) }),
        without,
        base(clickId, { customerExternalId: 42 }),
        base(clickId, { customerExternalId: null }),
      ],
      'customerExternalId',
    );
  });

  it('customerName: required string of at most 100 characters', async () => {
    const { api, clickId } = await withClick();
    const long = 'n'.repeat(100);
    expect((await api.okLead(base(clickId, { customerName: long }))).customer.name).toBe(long);
    const { customerName: _omit, ...without } = base(clickId, { customerExternalId: 'other' });
    await expectRejected(
      api,
      [
        base(clickId, { customerExternalId: 'other', customerName: 'n'.repeat(101) }),
        without,
        base(clickId, { customerExternalId: 'other', customerName: 7 }),
        base(clickId, { customerExternalId: 'other', customerName: null }),
      ],
      'customerName',
    );
  });

  it('customerEmail: an email of at most 100 characters; null clears it, omitted keeps it', async () => {
    const { api, clickId } = await withClick();
    const first = await api.okLead(base(clickId, { customerEmail: 'ada@example.com' }));
    expect(first.customer.email).toBe('ada@example.com');
    // Omitted: kept.
    expect((await api.okLead(base(clickId))).customer.email).toBe('ada@example.com');
    // At most 100 characters.
    const hundred = `${'a'.repeat(100 - '@example.com'.length)}@example.com`;
    expect(hundred).toHaveLength(100);
    expect((await api.okLead(base(clickId, { customerEmail: hundred }))).customer.email).toBe(hundred);
    await expectRejected(
      api,
      [
        base(clickId, { customerEmail: `a${hundred}` }),
        base(clickId, { customerEmail: 'not-an-email' }),
        base(clickId, { customerEmail: 'ada@' }),
        base(clickId, { customerEmail: 12 }),
      ],
      'customerEmail',
    );
    expect((await api.customers())[0]!.email).toBe(hundred);
    // null: cleared.
    const cleared = await api.okLead(base(clickId, { customerEmail: null }));
    expect(cleared.customer.email).toBeNull();
    expect((await api.customers())[0]!.email).toBeNull();
  });

  it('customerAvatar: an https URL; null clears it, omitted keeps it', async () => {
    const { api, clickId } = await withClick();
    const avatar = 'https://cdn.example.com/u/ada.png?size=64';
    expect((await api.okLead(base(clickId, { customerAvatar: avatar }))).customer.avatar).toBe(avatar);
    expect((await api.okLead(base(clickId))).customer.avatar).toBe(avatar);
    await expectRejected(
      api,
      [
        base(clickId, { customerAvatar: 'http://cdn.example.com/ada.png' }),
        base(clickId, { customerAvatar: 'ftp://cdn.example.com/ada.png' }),
        base(clickId, { customerAvatar: 'javascript:alert(1)' }),
        base(clickId, { customerAvatar: 'cdn.example.com/ada.png' }),
        base(clickId, { customerAvatar: true }),
      ],
      'customerAvatar',
    );
    expect((await api.customers())[0]!.avatar).toBe(avatar);
    expect((await api.okLead(base(clickId, { customerAvatar: null }))).customer.avatar).toBeNull();
    expect((await api.customers())[0]!.avatar).toBeNull();
  });

  it('metadata: an object, stored with the event; anything else is a 400', async () => {
    const { api, clickId } = await withClick();
    const metadata = { source: 'newsletter', n: 1.5, list: [1, 'two', null], deep: { a: { b: { c: 'd' } } }, flag: false };
    expect((await api.okLead(base(clickId, { metadata }))).metadata).toEqual(metadata);
    await expectRejected(
      api,
      [base(clickId, { metadata: [1, 2] }), base(clickId, { metadata: 'text' }), base(clickId, { metadata: 3 }), base(clickId, { metadata: true })],
      'metadata',
    );
  });

  it('clickId: required string; a value that is no click id is a 400', async () => {
    const { api, clickId } = await withClick();
    const { clickId: _omit, ...without } = base(clickId);
    await expectRejected(api, [without, base(clickId, { clickId: null }), base(clickId, { clickId: 5 }), base(clickId, { clickId: 'not-a-click' })], 'clickId');
  });

  it('an unknown click id is a 400 and writes nothing', async () => {
    const { api } = await withClick();
    await expectRejected(api, [base(randomUUID())]);
  });

  it('a body that is not one JSON object is a 400', async () => {
    const { api, clickId } = await withClick();
    const before = await api.state();
    expect400(await api.lead([base(clickId)]));
    expect400(await api.lead('text'));
    const malformed = await t.inject({
      method: 'POST',
      url: '/api/track/lead',
      headers: { ...bearer(api.ws.key), 'content-type': 'application/json' },
      payload: '{"clickId":',
    });
    expect400(malformed, undefined, 'malformed_json');
    expect(await api.state()).toEqual(before);
  });
});

describe('POST /api/track/lead: deferred tracking (clickId "")', () => {
  it('attributes the lead to the click of the customer’s most recent lead', async () => {
    const api = await client();
    const [l1, l2] = [await api.link(), await api.link()];
    const c1 = await api.click(l1);
    const c2 = await api.click(l2);
    await api.okLead(base(c1, { eventName: 'Sign up' }));
    await api.okLead(base(c2, { eventName: 'Newsletter' }));
    const deferred = await api.okLead(base('', { eventName: 'Trial started', metadata: { deferred: true } }));
    expect(deferred).toMatchObject({ eventName: 'Trial started', clickId: c2, linkId: l2.id, metadata: { deferred: true } });
    // The deferred lead is now the most recent one; a further deferred lead keeps the same click.
    const again = await api.okLead(base('', { eventName: 'Activated' }));
    expect(again).toMatchObject({ clickId: c2, linkId: l2.id });
    expect(await api.totals()).toEqual({ leads: 4, sales: 0, saleAmount: 0 });
  });

  it('fails with 400 when the customer has no earlier lead, creating no customer', async () => {
    const { api, clickId } = await withClick();
    await api.okLead(base(clickId, { customerExternalId: 'someone-else' }));
    await expectRejected(api, [base('', { customerExternalId: 'newcomer' })]);
    expect((await api.customers()).map((c) => c.externalId)).toEqual(['someone-else']);
  });

  it('fails with 400 for a customer who only has a sale (no lead)', async () => {
    const { api, clickId } = await withClick();
    const sale = await api.sale({ customerExternalId: 'buyer', customerName: 'B', amount: 100, clickId });
    expect(sale.statusCode, sale.body).toBe(200);
    await expectRejected(api, [base('', { customerExternalId: 'buyer' })]);
  });
});

describe('POST /api/track/lead: scope and workspaces', () => {
  it('needs conversionsWrite (403 missing_scopes, nothing written); that scope alone is enough', async () => {
    const { api, clickId } = await withClick();
    const { key: without } = await api.ws.newKey(['customersRead', 'customersWrite', 'analyticsRead', 'linksWrite']);
    const before = await api.state();
    const denied = await api.lead(base(clickId), without);
    expect(denied.statusCode, denied.body).toBe(403);
    expect(denied.json()).toMatchObject({ error: { code: 'missing_scopes' }, missingScopes: ['conversionsWrite'] });
    expect(await api.state()).toEqual(before);
    const { key: only } = await api.ws.newKey(['conversionsWrite']);
    const ok = await api.lead(base(clickId), only);
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('another workspace’s click id is a 400, and nothing is written in either workspace', async () => {
    const a = await withClick();
    const b = await withClick();
    const beforeA = await a.api.state();
    const beforeB = await b.api.state();
    expect400(await a.api.lead(base(b.clickId)));
    expect(await a.api.state()).toEqual(beforeA);
    expect(await b.api.state()).toEqual(beforeB);
    // The click is fine for its own workspace.
    expect((await b.api.okLead(base(b.clickId))).clickId).toBe(b.clickId);
  });

  it('the same customerExternalId in two workspaces is two customers; deferred tracking sees only its own workspace', async () => {
    const a = await withClick();
    const b = await withClick();
    const inA = await a.api.okLead(base(a.clickId, { customerName: 'In A' }));
    const inB = await b.api.okLead(base(b.clickId, { customerName: 'In B' }));
    expect(inB.customer.id).not.toBe(inA.customer.id);
    expect((await a.api.customers()).map((c) => c.name)).toEqual(['In A']);
    expect((await b.api.customers()).map((c) => c.name)).toEqual(['In B']);
    // A customer known only in A has no earlier lead in a third workspace.
    const c = await withClick();
    await expectRejected(c.api, [base('')]);
    // Deferred in B uses B's click, never A's.
    expect((await b.api.okLead(base(''))).clickId).toBe(b.clickId);
  });
});

describe('POST /api/track/lead: property', () => {
  it('answers only 200 or 400; a 200 records exactly one event, a 400 writes nothing', async () => {
    const api = await client();
    const other = await client();
    const link = await api.link();
    const clickId = await api.click(link);
    const foreignClick = await other.click(await other.link());
    // One customer with a lead, so deferred tracking can succeed for it.
    await api.okLead(base(clickId, { customerExternalId: 'known' }));
    let fresh = 0;

    const nasty = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.constantFrom('', ' ', '\u0000', 'a\ud800', '💥'.repeat(60), "'; DROP TABLE customers; --"),
      fc.nat({ max: 300 }).map((n) => 'x'.repeat(n)),
    );
    const anyJson = fc.jsonValue({ maxDepth: 2 });
    // A valid body, then up to two of its fields replaced by anything (or dropped), plus junk.
    const valid = fc.record(
      {
        clickId: fc.constantFrom(clickId, clickId, ''),
        eventName: fc.string({ minLength: 1, maxLength: 20 }),
        customerExternalId: fc.oneof(
          fc.constantFrom('known', 'other'),
          fc.nat().map(() => `fresh-${fresh++}`),
        ),
        customerName: fc.string({ maxLength: 20 }),
        customerEmail: fc.constantFrom('a@b.co', 'first.last@example.com', null),
        customerAvatar: fc.oneof(fc.constantFrom('https://cdn.example.com/a.png', null), fc.webUrl({ validSchemes: ['https'] })),
        metadata: fc.oneof(fc.object({ maxDepth: 2 }), fc.constant(null)),
      },
      { requiredKeys: ['clickId', 'eventName', 'customerExternalId', 'customerName'] },
    );
    const wrong = fc.oneof(
      fc.constant(undefined),
      nasty,
      anyJson,
      fc.constant(foreignClick),
      fc.constantFrom('not-an-email', 'a@', `${'x'.repeat(95)}@b.co`, 'http://cdn.example.com/a.png', 'https://', 'javascript:alert(1)'),
      fc.webUrl(),
    );
    const field = fc.constantFrom('clickId', 'eventName', 'customerExternalId', 'customerName', 'customerEmail', 'customerAvatar', 'metadata');
    const body = mutatedBodies(valid, field, wrong, anyJson);

    await fc.assert(
      fc.asyncProperty(body, async (input) => {
        const expected = await api.state();
        const res = await api.lead(input);
        expect([200, 400], res.body).toContain(res.statusCode);
        const after = await api.state();
        if (res.statusCode === 400) {
          expect(res.json<{ error: { code: string } }>().error.code).toMatch(/^(invalid_field|malformed_json)$/);
          expect(after).toEqual(expected);
        } else {
          const event = res.json<LeadEvent>();
          expect(event.eventName).toBe(input.eventName);
          expect(event.customer.externalId).toBe(input.customerExternalId);
          expect(event.clickId).toBe(clickId);
          expect(event.metadata).toEqual(input.metadata === undefined ? null : JSON.parse(JSON.stringify(input.metadata)));
          expect(after.totals).toEqual({ ...expected.totals, leads: expected.totals.leads + 1 });
          expect(after.customers.filter((c) => c.id !== event.customer.id)).toEqual(expected.customers.filter((c) => c.id !== event.customer.id));
          expect(after.customers.filter((c) => c.externalId === event.customer.externalId)).toEqual([event.customer]);
        }
      }),
      { numRuns: 60 },
    );
    // The foreign workspace never received anything.
    expect(await other.totals()).toEqual({ leads: 0, sales: 0, saleAmount: 0 });
  });
});
