/**
 * POST /webhooks/stripe/{id} (operations.md §12, "Receive"): the Stripe-Signature check over the
 * raw body before it is read — events signed by the official `stripe` package pass; a wrong or
 * missing signature, another connection's secret, a stale or future timestamp, a body changed
 * after signing → 400 in the error form and nothing recorded; any v1 may match; the same event
 * id twice → one sale; unknown types → 200 ignored; a body over 1 MB → 413 unread.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { expectError } from '../people/helpers.js';
import { clientWithClick } from '../conversions/helpers.js';
import { SIGNING_SECRET, connectStripe, postEvent, receivedEvents, signature, stripeEvent, stripeId, type Connection } from './helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

/** A workspace with a click, connected to Stripe, and a paid checkout event carrying that click. */
async function shop(secret = SIGNING_SECRET) {
  const { api, link, clickId } = await clientWithClick(t);
  const connection = await connectStripe(t, api.ws, { secret });
  const checkout = () => stripeEvent('checkout.session.completed', { client_reference_id: clickId, customer: stripeId('cus'), payment_intent: stripeId('pi') });
  const sales = async () => {
    const res = await api.send('GET', '/api/events?type=sale');
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ id: string; linkId: string; amount: number }[]>();
  };
  const nothingRecorded = async () => {
    expect(await receivedEvents(t, api.ws.key)).toEqual([]);
    expect(await sales()).toEqual([]);
    expect((await api.totals()).sales).toBe(0);
  };
  return { api, link, clickId, connection, checkout, sales, nothingRecorded };
}

const now = () => Math.floor(Date.now() / 1000);

describe('the signature is checked before anything is read', () => {
  it('an event signed by the stripe package with the connection secret makes a sale', async () => {
    const s = await shop();
    const res = await postEvent(t, s.connection.webhookUrl, s.checkout(), SIGNING_SECRET);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ received: true });
    expect(await s.sales()).toHaveLength(1);
  });

  it('wrong secret, missing or malformed header, stale or future t, a body changed after signing: 400 and nothing recorded', async () => {
    const s = await shop();
    const url = s.connection.webhookUrl;
    const cases: [string, Promise<Awaited<ReturnType<typeof postEvent>>>][] = [
      ['wrong secret', postEvent(t, url, s.checkout(), `whsec_${randomBytes(24).toString('hex')}`)],
      ['secret without its prefix', postEvent(t, url, s.checkout(), SIGNING_SECRET.slice(6))],
      ['no header', postEvent(t, url, s.checkout(), SIGNING_SECRET, { headers: { 'stripe-signature': '' } })],
      ['not a signature', postEvent(t, url, s.checkout(), SIGNING_SECRET, { headers: { 'stripe-signature': 'hello' } })],
      ['v0 only', postEvent(t, url, s.checkout(), SIGNING_SECRET, { headers: { 'stripe-signature': `t=${now()},v0=${'a'.repeat(64)}` } })],
      ['stale: 301 s old', postEvent(t, url, s.checkout(), SIGNING_SECRET, { timestamp: now() - 301 })],
      ['stale: a day old', postEvent(t, url, s.checkout(), SIGNING_SECRET, { timestamp: now() - 86_400 })],
      ['from the future', postEvent(t, url, s.checkout(), SIGNING_SECRET, { timestamp: now() + 3600 })],
      [
        'amount changed after signing',
        postEvent(t, url, s.checkout(), SIGNING_SECRET, { tamper: (p) => p.replace('"amount_total": 4900', '"amount_total": 490000') }),
      ],
      ['a space added after signing', postEvent(t, url, s.checkout(), SIGNING_SECRET, { tamper: (p) => `${p} ` })],
      ['re-serialised after signing', postEvent(t, url, s.checkout(), SIGNING_SECRET, { tamper: (p) => JSON.stringify(JSON.parse(p)) })],
    ];
    for (const [name, pending] of cases) {
      const res = await pending;
      expect(res.statusCode, `${name}: ${res.body}`).toBe(400);
      expectError(res, 400, 'stripe_signature');
    }
    // The headers Stripe sends without the signature header at all.
    const bare = await t.inject({
      method: 'POST',
      url: new URL(url).pathname,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(s.checkout()),
    });
    expectError(bare, 400, 'stripe_signature');
    await s.nothingRecorded();
  });

  it("an event signed with another connection's secret: 400, nothing recorded in either", async () => {
    const a = await shop(`whsec_${randomBytes(24).toString('hex')}`);
    const otherSecret = `whsec_${randomBytes(24).toString('hex')}`;
    const b = await shop(otherSecret);
    const res = await postEvent(t, a.connection.webhookUrl, a.checkout(), otherSecret);
    expectError(res, 400, 'stripe_signature');
    await a.nothingRecorded();
    await b.nothingRecorded();
  });

  it('any v1 may match (Stripe sends two while a secret rolls); the stale check applies to the t they share', async () => {
    const s = await shop();
    const payload = JSON.stringify(s.checkout());
    const good = signature(payload, SIGNING_SECRET)
      .split(',')
      .find((p) => p.startsWith('v1='))!;
    const t0 = signature(payload, SIGNING_SECRET).split(',')[0]!;
    const header = `${t0},v1=${'0'.repeat(64)},${good},v0=abc`;
    const res = await postEvent(t, s.connection.webhookUrl, payload, SIGNING_SECRET, { headers: { 'stripe-signature': header } });
    expect(res.statusCode, res.body).toBe(200);
    expect(await s.sales()).toHaveLength(1);
  });

  it('a correctly signed body that is not JSON, or not an event: 400 in the error form, nothing recorded', async () => {
    const s = await shop();
    expectError(await postEvent(t, s.connection.webhookUrl, '{"id": "evt_1",', SIGNING_SECRET), 400, 'malformed_json');
    for (const body of [
      '[]',
      '"evt"',
      '{}',
      '{"object":"event","id":"evt_1","type":"invoice.paid"}',
      '{"object":"charge","id":"ch_1","type":"x","data":{"object":{}}}',
    ]) {
      expectError(await postEvent(t, s.connection.webhookUrl, body, SIGNING_SECRET), 400, 'stripe_event_invalid');
    }
    await s.nothingRecorded();
  });

  it('a body over 1 MB is refused (413) without being read', async () => {
    const s = await shop();
    const event = s.checkout();
    event.data.object.metadata = { pad: 'x'.repeat(1024 * 1024) };
    const res = await postEvent(t, s.connection.webhookUrl, event, SIGNING_SECRET);
    expectError(res, 413, 'body_too_large');
    await s.nothingRecorded();
  });

  it('property: any change to a signed body or its header is a 400 that records nothing', async () => {
    const s = await shop();
    const payload = JSON.stringify(s.checkout());
    const header = signature(payload, SIGNING_SECRET);
    await fc.assert(
      fc.asyncProperty(
        fc
          .oneof(
            fc
              .record({ at: fc.nat(payload.length - 1), ch: fc.string({ minLength: 1, maxLength: 1 }) })
              .map(({ at, ch }) => ({ body: payload.slice(0, at) + ch + payload.slice(at + 1), header })),
            fc
              .record({ at: fc.nat(header.length - 1), ch: fc.constantFrom(...'0123456789abcdef=,t') })
              .map(({ at, ch }) => ({ body: payload, header: header.slice(0, at) + ch + header.slice(at + 1) })),
            fc.string({ maxLength: 200 }).map((h) => ({ body: payload, header: h })),
          )
          .filter((c) => c.body !== payload || c.header !== header),
        async (c) => {
          const res = await t.inject({
            method: 'POST',
            url: new URL(s.connection.webhookUrl).pathname,
            headers: { 'content-type': 'application/json', 'stripe-signature': c.header },
            payload: c.body,
          });
          // A changed character of the header that keeps it valid (the same hex digit) is no change.
          if (res.statusCode === 200) {
            expect(c.body).toBe(payload);
            return;
          }
          expect(res.statusCode, res.body).toBe(400);
          expect(res.json<{ error: { code: string } }>().error.code).toBe('stripe_signature');
        },
      ),
      { numRuns: 60 },
    );
    // At most the untouched event made its one sale (a no-op header change can replay it: a duplicate).
    expect((await s.sales()).length).toBeLessThanOrEqual(1);
  });
});

describe('what a valid event makes', () => {
  it('the same event twice (a Stripe retry): 200 both times, one sale, the second listed as duplicate', async () => {
    const s = await shop();
    const event = s.checkout();
    expect((await postEvent(t, s.connection.webhookUrl, event, SIGNING_SECRET)).statusCode).toBe(200);
    const again = await postEvent(t, s.connection.webhookUrl, event, SIGNING_SECRET);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual({ received: true });
    const sales = await s.sales();
    expect(sales).toHaveLength(1);
    const listed = await receivedEvents(t, s.api.ws.key);
    expect(listed.map((e) => [e.stripeId, e.outcome])).toEqual([
      [event.id, 'duplicate'],
      [event.id, 'sale'],
    ]);
    expect(listed[1]!.saleId).toBe(sales[0]!.id);
  });

  it('the same event id sent concurrently: one sale', async () => {
    const s = await shop();
    const event = s.checkout();
    const answers = await Promise.all([1, 2, 3].map(() => postEvent(t, s.connection.webhookUrl, event, SIGNING_SECRET)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    expect(await s.sales()).toHaveLength(1);
    expect((await receivedEvents(t, s.api.ws.key)).map((e) => e.outcome).sort()).toEqual(['duplicate', 'duplicate', 'sale']);
  });

  it('an unknown event type: 200, listed as ignored', async () => {
    const s = await shop();
    const event = stripeEvent('customer.created', { object: 'customer', id: stripeId('cus') });
    const res = await postEvent(t, s.connection.webhookUrl, event, SIGNING_SECRET);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ received: true });
    expect((await receivedEvents(t, s.api.ws.key)).map((e) => [e.type, e.outcome, e.saleId])).toEqual([['customer.created', 'ignored', null]]);
    expect(await s.sales()).toEqual([]);
  });

  it('a signed event whose customer nests 50,000 deep (or is no id): 200, listed as ignored, no sale', async () => {
    const s = await shop();
    // Built as text: JSON.stringify itself would overflow the stack on it.
    const nested = `${'{"id":'.repeat(50_000)}"cus_deep"${'}'.repeat(50_000)}`;
    const deep = JSON.stringify(s.checkout()).replace(/"customer":"[^"]*"/, `"customer":${nested}`);
    expect(deep.length).toBeGreaterThan(300_000);
    const res = await postEvent(t, s.connection.webhookUrl, deep, SIGNING_SECRET);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.json()).toEqual({ received: true });
    for (const customer of [42, ['cus_a'], { id: { id: 'cus_b' } }, '']) {
      expect(
        (await postEvent(t, s.connection.webhookUrl, stripeEvent('checkout.session.completed', { ...s.checkout().data.object, customer }), SIGNING_SECRET))
          .statusCode,
      ).toBe(200);
    }
    expect((await receivedEvents(t, s.api.ws.key)).map((e) => [e.type, e.outcome, e.saleId])).toEqual(
      Array(5).fill(['checkout.session.completed', 'ignored', null]),
    );
    expect(await s.sales()).toEqual([]);
  });

  it('events are listed newest first with the common list parameters', async () => {
    const s = await shop();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const event = stripeEvent('customer.updated', {});
      ids.push(event.id);
      expect((await postEvent(t, s.connection.webhookUrl, event, SIGNING_SECRET)).statusCode).toBe(200);
    }
    expect((await receivedEvents(t, s.api.ws.key)).map((e) => e.stripeId)).toEqual([...ids].reverse());
    expect((await receivedEvents(t, s.api.ws.key, '?sort=asc&take=2&skip=1')).map((e) => e.stripeId)).toEqual(ids.slice(1, 3));
    const one = (await receivedEvents(t, s.api.ws.key))[2]!;
    expect(await receivedEvents(t, s.api.ws.key, `?id=${one.id}`)).toEqual([one]);
  });
});

export type { Connection };
