/**
 * operations.md §12 amended, with §18's partner program: Stripe events (fixtures signed with the
 * official `stripe` package) make sales that earn a partner's commissions. A subscription made
 * outside Checkout (a lead tracked with stripeCustomerId) earns on each invoice.paid; an invoice
 * finds its customer by subscription metadata or by a unique e-mail; a dispute holds the sale's
 * commission (`dispute`), lost reverses it as a whole refund, won releases it; a replay changes
 * nothing. Read back as a client would: GET /api/commissions, /api/events, the Stripe events.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { DESKTOP } from '../../helpers/visitors.js';
import { SIGNING_SECRET, connectStripe, postEvent, receivedEvents, stripeEvent, stripeId, type StripeEventBody } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

interface Commission {
  id: string;
  partnerId: string;
  type: string;
  eventId: string | null;
  saleAmount: number | null;
  earnings: number;
  status: string;
  holdReasons: string[];
  reversedReason: string | null;
}

/** A workspace with a program (10 % of every sale), a partner with a link, connected to Stripe. */
async function partnerShop() {
  const { ws, send, collectionId } = await workspaceWithCollection(t);
  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, body?: unknown, status = 200) => {
    const res = await send(method, url, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
    return res.json();
  };
  await ok('PUT', '/api/program', { name: 'Friends', slug: `f-${randomUUID().slice(0, 8)}`, landingUrl: 'https://shop.example/', currency: 'usd' });
  const [group] = await ok('GET', '/api/partner-groups');
  await ok('PUT', '/api/partner-groups', [{ id: group.id, rewards: [{ event: 'sale', type: 'percentage', amount: 1000 }] }]);
  const [partner] = await ok('POST', '/api/partners', [{ name: 'Ana', email: `ana-${randomUUID().slice(0, 6)}@partner.example` }], 201);
  const [link] = await ok('POST', '/api/links', [{ url: 'https://shop.example/spring', collectionId, partnerId: partner.id }], 201);
  const connection = await connectStripe(t, ws);
  const click = async (): Promise<string> => {
    const res = await t.inject({ method: 'GET', url: new URL(link.shortUrl).pathname, remoteAddress: '81.2.69.160', headers: { 'user-agent': DESKTOP } });
    expect(res.statusCode, res.body).toBe(302);
    return new URL(res.headers.location as string).searchParams.get('ltid')!;
  };
  const post = async (event: StripeEventBody) => {
    const res = await postEvent(t, connection.webhookUrl, event, SIGNING_SECRET);
    expect(res.statusCode, res.body).toBe(200);
    return event;
  };
  const sendEvent = (type: string, object: Record<string, unknown>, o: { id?: string } = {}) => post(stripeEvent(type, object, o));
  /** The outcome, sale and reason the latest received event was listed with. */
  const latest = async () => {
    const [e] = await receivedEvents(t, ws.key, '?take=1');
    return { outcome: e!.outcome, saleId: e!.saleId, reason: e!.reason };
  };
  const commissions = (): Promise<Commission[]> => ok('GET', '/api/commissions?sort=asc');
  const sales = (): Promise<{ id: string; amount: number; refundedAmount: number; customerExternalId: string; eventName: string }[]> =>
    ok('GET', '/api/events?type=sale&sort=asc');
  const lead = (clickId: string, customer: string, extra: Record<string, unknown> = {}) =>
    ok('POST', '/api/track/lead', { clickId, eventName: 'Sign up', customerExternalId: customer, customerName: 'Cam Buyer', ...extra });
  return { ws, ok, partner, click, post, sendEvent, latest, commissions, sales, lead };
}

const invoice = (o: Record<string, unknown>) => ({ id: stripeId('in'), payment_intent: stripeId('pi'), amount_paid: 1900, currency: 'usd', ...o });

describe('invoice.paid finds its customer', () => {
  test('a lead with stripeCustomerId on a partner link, then two invoices of that Stripe customer: two sale commissions for the partner', async () => {
    const s = await partnerShop();
    const cus = stripeId('cus');
    await s.lead(await s.click(), 'user-1', { stripeCustomerId: cus });
    await s.sendEvent('invoice.paid', invoice({ customer: cus, customer_email: 'nobody@example.com' }));
    const first = await s.latest();
    expect(first).toMatchObject({ outcome: 'renewal', reason: null });
    await s.sendEvent('invoice.paid', invoice({ customer: cus, amount_paid: 2500 }));
    const second = await s.latest();
    expect(second.outcome).toBe('renewal');
    const sales = await s.sales();
    expect(sales.map((x) => [x.id, x.eventName, x.amount, x.customerExternalId])).toEqual([
      [first.saleId, 'Subscription', 1900, 'user-1'],
      [second.saleId, 'Subscription', 2500, 'user-1'],
    ]);
    expect((await s.commissions()).map((c) => [c.type, c.partnerId, c.eventId, c.saleAmount, c.earnings, c.status])).toEqual([
      ['sale', s.partner.id, first.saleId, 1900, 190, 'pending'],
      ['sale', s.partner.id, second.saleId, 2500, 250, 'pending'],
    ]);
  });

  test('stripeCustomerId on /api/track/sale is remembered too; a malformed one is a 400', async () => {
    const s = await partnerShop();
    const cus = stripeId('cus');
    await s.lead(await s.click(), 'user-2');
    await s.ok('POST', '/api/track/sale', { customerExternalId: 'user-2', customerName: 'Cam', amount: 1000, currency: 'usd', stripeCustomerId: cus });
    await s.sendEvent('invoice.paid', invoice({ customer: cus }));
    expect((await s.latest()).outcome).toBe('renewal');
    expect((await s.commissions()).map((c) => c.earnings)).toEqual([100, 190]);
    const bad = await s.ok(
      'POST',
      '/api/track/lead',
      { clickId: await s.click(), eventName: 'x', customerExternalId: 'u', customerName: 'C', stripeCustomerId: 'sub_1' },
      400,
    );
    expect(JSON.stringify(bad)).toContain('stripeCustomerId');
  });

  test('by subscription metadata.customerExternalId: parent.subscription_details (newer API) and subscription_details (older)', async () => {
    const s = await partnerShop();
    await s.lead(await s.click(), 'user-42');
    const basil = stripeEvent('invoice.paid.parent', { id: stripeId('in'), customer: stripeId('cus'), customer_email: null });
    basil.type = 'invoice.paid';
    await s.post(basil);
    expect(await s.latest()).toMatchObject({ outcome: 'renewal', reason: null });
    await s.sendEvent(
      'invoice.paid',
      invoice({ customer: stripeId('cus'), customer_email: null, subscription_details: { metadata: { customerExternalId: 'user-42' } } }),
    );
    expect((await s.latest()).outcome).toBe('renewal');
    expect((await s.sales()).map((x) => x.customerExternalId)).toEqual(['user-42', 'user-42']);
  });

  test('by e-mail when exactly one customer has it (compared normalized); two sharing it: unattributed, no_customer', async () => {
    const s = await partnerShop();
    await s.lead(await s.click(), 'solo', { customerEmail: 'Solo.Buyer@Example.COM' });
    const cus = stripeId('cus');
    await s.sendEvent('invoice.paid', invoice({ customer: cus, customer_email: 'solo.buyer@example.com.' }));
    expect(await s.latest()).toMatchObject({ outcome: 'renewal', reason: null });
    // The Stripe customer is remembered: its next invoice finds them without the e-mail.
    await s.sendEvent('invoice.paid', invoice({ customer: cus, customer_email: null }));
    expect((await s.latest()).outcome).toBe('renewal');
    await s.lead(await s.click(), 'twin-a', { customerEmail: 'twin@example.com' });
    await s.lead(await s.click(), 'twin-b', { customerEmail: 'TWIN@example.com' });
    await s.sendEvent('invoice.paid', invoice({ customer: stripeId('cus'), customer_email: 'twin@example.com' }));
    expect(await s.latest()).toEqual({ outcome: 'unattributed', saleId: null, reason: 'no_customer' });
    expect((await s.sales()).map((x) => x.customerExternalId)).toEqual(['solo', 'solo']);
    expect((await s.commissions()).map((c) => c.earnings)).toEqual([190, 190]);
  });
});

describe('disputes', () => {
  /** A paid checkout on the partner's click: its sale and commission (4900 → 490). */
  async function disputedSale() {
    const s = await partnerShop();
    const pi = stripeId('pi');
    await s.sendEvent('checkout.session.completed', {
      client_reference_id: await s.click(),
      customer: stripeId('cus'),
      payment_intent: pi,
      amount_total: 4900,
    });
    const sale = await s.latest();
    expect(sale.outcome).toBe('sale');
    const dispute = (type: 'charge.dispute.created' | 'charge.dispute.closed', status: string, id?: string) =>
      s.sendEvent(type, { id: stripeId('dp'), payment_intent: pi, status }, { id });
    return { s, saleId: sale.saleId!, dispute };
  }

  test('created holds the commission (dispute); lost reverses it as a whole refund', async () => {
    const { s, saleId, dispute } = await disputedSale();
    await dispute('charge.dispute.created', 'needs_response');
    expect(await s.latest()).toEqual({ outcome: 'dispute', saleId, reason: null });
    expect((await s.commissions()).map((c) => [c.eventId, c.earnings, c.status, c.holdReasons, c.reversedReason])).toEqual([
      [saleId, 490, 'held', ['dispute'], null],
    ]);
    await dispute('charge.dispute.closed', 'lost');
    expect(await s.latest()).toEqual({ outcome: 'refund', saleId, reason: null });
    const [c] = await s.commissions();
    expect([c!.earnings, c!.status, c!.reversedReason]).toEqual([0, 'reversed', 'refund']);
    expect((await s.sales()).map((x) => [x.amount, x.refundedAmount])).toEqual([[4900, 4900]]);
  });

  test('won releases the dispute hold: pending again; a replayed dispute event changes nothing', async () => {
    const { s, saleId, dispute } = await disputedSale();
    const opened = await dispute('charge.dispute.created', 'needs_response');
    const before = await s.commissions();
    await s.post(opened); // the same event again
    expect(await s.latest()).toEqual({ outcome: 'duplicate', saleId: null, reason: null });
    expect(await s.commissions()).toEqual(before);
    const won = await dispute('charge.dispute.closed', 'won');
    expect(await s.latest()).toEqual({ outcome: 'dispute', saleId, reason: null });
    const released = await s.commissions();
    expect(released.map((c) => [c.earnings, c.status, c.holdReasons])).toEqual([[490, 'pending', []]]);
    await s.post(won);
    expect((await s.latest()).outcome).toBe('duplicate');
    expect(await s.commissions()).toEqual(released);
    expect((await s.sales()).map((x) => x.refundedAmount)).toEqual([0]);
  });

  test('a paid commission stays paid when disputed; lost takes it back with a negative custom commission', async () => {
    const { s, saleId, dispute } = await disputedSale();
    const [earned] = await s.commissions();
    // As a completed payout leaves it (payouts are tested with their module): paid.
    await rows(t.database.db, sql`UPDATE commissions SET status = 'paid' WHERE id = ${earned!.id}::uuid`);
    await dispute('charge.dispute.created', 'needs_response');
    expect(await s.latest()).toEqual({ outcome: 'dispute', saleId, reason: null });
    expect((await s.commissions()).map((c) => [c.type, c.earnings, c.status, c.holdReasons])).toEqual([['sale', 490, 'paid', []]]);
    await dispute('charge.dispute.closed', 'lost');
    expect((await s.commissions()).map((c) => [c.type, c.eventId, c.earnings, c.status])).toEqual([
      ['sale', saleId, 490, 'paid'],
      ['custom', saleId, -490, 'payable'],
    ]);
  });

  test('won takes off the dispute reason only: a fraud rule still holds the commission', async () => {
    const s = await partnerShop();
    const pi = stripeId('pi');
    const customer_details = { email: 'cam@mailinator.com', name: 'Cam', address: null, phone: null, tax_exempt: 'none', tax_ids: [] };
    await s.sendEvent('checkout.session.completed', { client_reference_id: await s.click(), customer: stripeId('cus'), payment_intent: pi, customer_details });
    expect((await s.commissions()).map((c) => [c.status, c.holdReasons])).toEqual([['held', ['disposableEmail']]]);
    await s.sendEvent('charge.dispute.created', { payment_intent: pi });
    expect((await s.commissions()).map((c) => [c.status, c.holdReasons])).toEqual([['held', ['disposableEmail', 'dispute']]]);
    await s.sendEvent('charge.dispute.closed', { payment_intent: pi, status: 'won' });
    expect((await s.commissions()).map((c) => [c.status, c.holdReasons])).toEqual([['held', ['disposableEmail']]]);
  });

  test("a renewal after its first sale was disputed is not held: the dispute is that sale's alone", async () => {
    const s = await partnerShop();
    const cus = stripeId('cus');
    await s.lead(await s.click(), 'user-9', { stripeCustomerId: cus });
    const first = invoice({ customer: cus });
    await s.sendEvent('invoice.paid', first);
    await s.sendEvent('charge.dispute.created', { payment_intent: first.payment_intent });
    await s.sendEvent('invoice.paid', invoice({ customer: cus }));
    expect((await s.commissions()).map((c) => [c.status, c.holdReasons])).toEqual([
      ['held', ['dispute']],
      ['pending', []],
    ]);
  });

  test('a dispute of a payment no sale holds: unattributed, no_sale', async () => {
    const s = await partnerShop();
    await s.sendEvent('charge.dispute.created', { payment_intent: stripeId('pi') });
    expect(await s.latest()).toEqual({ outcome: 'unattributed', saleId: null, reason: 'no_sale' });
  });

  test('the connection lists the dispute events', async () => {
    const s = await partnerShop();
    const [res] = await Promise.all([s.ok('GET', '/api/integrations/stripe')]);
    expect(res.events).toEqual([
      'checkout.session.completed',
      'checkout.session.async_payment_succeeded',
      'invoice.paid',
      'charge.refunded',
      'charge.dispute.created',
      'charge.dispute.closed',
    ]);
  });
});

describe('promotion codes a partner holds (§18 "Coupon codes")', () => {
  /** The shop, its partner also holding `promo`, their default link awaited. */
  async function promoShop(promo: string) {
    const s = await partnerShop();
    await s.ok('PUT', '/api/partners', [{ id: s.partner.id, couponCodes: [promo] }]);
    let defaultLinkId: string | null = null;
    await expect
      .poll(async () => (defaultLinkId = ((await s.ok('GET', '/api/partners')) as { id: string; defaultLinkId: string | null }[])[0]!.defaultLinkId))
      .not.toBeNull();
    return { s, defaultLinkId: defaultLinkId! };
  }

  test('a checkout without a click id but with the promotion code: a sale on the default link earning for the partner', async () => {
    const promo = stripeId('promo');
    const { s, defaultLinkId } = await promoShop(promo);
    await s.sendEvent('checkout.session.completed', {
      client_reference_id: null,
      customer: stripeId('cus'),
      payment_intent: stripeId('pi'),
      amount_total: 4900,
      discounts: [{ coupon: 'SPRING', promotion_code: promo }],
    });
    expect((await s.latest()).outcome).toBe('sale');
    const [sale] = (await s.ok('GET', '/api/events?type=sale')) as { linkId: string }[];
    expect(sale!.linkId).toBe(defaultLinkId);
    expect((await s.commissions()).map((c) => [c.partnerId, c.saleAmount, c.earnings])).toEqual([[s.partner.id, 4900, 490]]);
  });

  test("an invoice of a Stripe customer never seen, its expanded discount naming the partner's promotion code: a sale for the partner; another code: unattributed", async () => {
    const promo = stripeId('promo');
    const { s } = await promoShop(promo);
    // No e-mail on either: the second would find the first's customer by it (§12).
    const anonymous = { customer_email: undefined, customer_name: undefined };
    await s.sendEvent(
      'invoice.paid',
      invoice({ customer: stripeId('cus'), ...anonymous, discounts: [{ id: stripeId('di'), object: 'discount', promotion_code: promo }] }),
    );
    expect((await s.latest()).outcome).toBe('renewal');
    await s.sendEvent(
      'invoice.paid',
      invoice({ customer: stripeId('cus'), ...anonymous, discounts: [{ id: stripeId('di'), promotion_code: stripeId('promo') }] }),
    );
    expect(await s.latest()).toEqual({ outcome: 'unattributed', saleId: null, reason: 'no_lead' });
    expect((await s.commissions()).map((c) => [c.partnerId, c.saleAmount, c.earnings])).toEqual([[s.partner.id, 1900, 190]]);
  });
});
