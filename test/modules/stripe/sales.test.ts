/**
 * operations.md §12 "Who bought" and "Mapping", end to end over HTTP: visitors click short
 * links, Stripe events built from the fixtures (API 2024-06-20) are signed with the official
 * `stripe` package and posted to the workspace's webhook URL, and the results are read back as
 * a client would: GET /api/events (sales, refundedAmount), GET /api/customers, GET /api/analytics
 * (revenue net of refunds) and GET /api/integrations/stripe/events (outcomes).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { rows } from '../../../src/db/connect.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { clientWithClick, type Link } from '../conversions/helpers.js';
import { SIGNING_SECRET, connectStripe, postEvent, receivedEvents, stripeEvent, stripeId, type StripeType } from './helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

interface Sale {
  id: string;
  eventName: string;
  linkId: string;
  clickId: string;
  leadId: string | null;
  amount: number;
  refundedAmount: number;
  currency: string;
  customerExternalId: string;
  customerName: string;
  customerEmail: string | null;
}

/** A workspace with a link and a click, connected to Stripe (testMode as given). */
async function shop(o: { testMode?: boolean } = {}) {
  const { api, link, clickId } = await clientWithClick(t);
  const connection = await connectStripe(t, api.ws, { testMode: o.testMode });
  const send = async (type: StripeType | string, object: Record<string, unknown>, e: { id?: string; livemode?: boolean } = {}) => {
    const event = stripeEvent(type, object, e);
    const res = await postEvent(t, connection.webhookUrl, event, SIGNING_SECRET);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ received: true });
    return event;
  };
  const sales = async (): Promise<Sale[]> => {
    const res = await api.send('GET', '/api/events?type=sale&sort=asc');
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Sale[]>();
  };
  /** The outcome the latest received event was listed with, its sale, and why when unattributed. */
  const latest = async () => {
    const [e] = await receivedEvents(t, api.ws.key, '?take=1');
    return { outcome: e!.outcome, saleId: e!.saleId, ...(e!.reason ? { reason: e!.reason } : {}) };
  };
  const revenue = async () => {
    const byLink = await api.send('GET', '/api/analytics?groupBy=link');
    const series = await api.send('GET', '/api/analytics?groupBy=timeseries&interval=hour');
    expect(byLink.statusCode, byLink.body).toBe(200);
    const sum = (res: typeof byLink) =>
      res
        .json<{ saleAmount: number; sales: number }[]>()
        .reduce((n, g) => ({ amount: n.amount + g.saleAmount, sales: n.sales + g.sales }), { amount: 0, sales: 0 });
    const a = sum(byLink);
    expect(sum(series)).toEqual(a);
    return a;
  };
  /** Net amount the rollups hold for the workspace (the rows whole periods are read from). */
  const rolledUp = async () => {
    const [r] = await rows<{ amount: number; sales: number }>(
      t.database.db,
      sql`SELECT coalesce(sum(amount), 0)::float8 AS amount, coalesce(sum(sales), 0)::float8 AS sales FROM analytics_rollups
          WHERE workspace_id = ${api.ws.id}::uuid AND scope_id = ${api.ws.id}::uuid AND dim = '' AND level = 'h'`,
    );
    return r!;
  };
  return { api, link, clickId, connection, send, sales, latest, revenue, rolledUp };
}

type Shop = Awaited<ReturnType<typeof shop>>;

const checkout = (o: Record<string, unknown> = {}): Record<string, unknown> => ({ customer: stripeId('cus'), payment_intent: stripeId('pi'), ...o });

describe('checkout.session.completed', () => {
  it('a click, then a paid checkout with client_reference_id = the click id: a sale on that link with amount, currency and customer', async () => {
    const s = await shop();
    const object = checkout({ client_reference_id: s.clickId, amount_total: 4900, currency: 'usd' });
    await s.send('checkout.session.completed', object);
    const [sale, ...more] = await s.sales();
    expect(more).toEqual([]);
    expect(sale).toMatchObject({
      eventName: 'Purchase',
      linkId: s.link.id,
      clickId: s.clickId,
      leadId: null,
      amount: 4900,
      refundedAmount: 0,
      currency: 'usd',
      customerExternalId: object.customer,
      customerName: 'Ada Lovelace',
      customerEmail: 'ada@example.com',
    });
    expect(await s.latest()).toEqual({ outcome: 'sale', saleId: sale!.id });
    expect(await s.revenue()).toEqual({ amount: 4900, sales: 1 });
    const customers = await s.api.customers();
    expect(customers.map((c) => [c.externalId, c.name, c.email])).toEqual([[object.customer, 'Ada Lovelace', 'ada@example.com']]);
  });

  it('the click id as ltid_<uuid>, or in metadata[CLICK_ID_PARAM]; metadata.customerExternalId names the customer', async () => {
    const s = await shop();
    await s.send('checkout.session.completed', checkout({ client_reference_id: `ltid_${s.clickId}` }));
    await s.send(
      'checkout.session.completed',
      checkout({ client_reference_id: null, metadata: { ltid: s.clickId.toUpperCase(), customerExternalId: 'user-42' }, amount_total: 700 }),
    );
    const sales = await s.sales();
    expect(sales.map((x) => [x.linkId, x.clickId, x.amount])).toEqual([
      [s.link.id, s.clickId, 4900],
      [s.link.id, s.clickId, 700],
    ]);
    expect(sales[1]!.customerExternalId).toBe('user-42');
  });

  it("an app's own client_reference_id is ignored: with no lead the event is unattributed; with the customer's lead, the sale follows it", async () => {
    const s = await shop();
    for (const ref of ['user_8812', randomUUID(), `ltid_${randomUUID()}`, `${s.clickId}x`]) {
      await s.send('checkout.session.completed', checkout({ client_reference_id: ref }));
      expect(await s.latest()).toEqual({ outcome: 'unattributed', saleId: null, reason: 'no_lead' });
    }
    expect(await s.sales()).toEqual([]);

    const lead = await s.api.okLead({ clickId: s.clickId, eventName: 'Sign up', customerExternalId: 'user_8812', customerName: 'Ada' });
    await s.send('checkout.session.completed', checkout({ client_reference_id: 'user_8812', metadata: { customerExternalId: 'user_8812' } }));
    const [sale] = await s.sales();
    expect(sale).toMatchObject({ leadId: lead.id, linkId: s.link.id, customerExternalId: 'user_8812' });
    expect((await s.latest()).outcome).toBe('sale');
  });

  it('a click id of another workspace is no click id here', async () => {
    const s = await shop();
    const other = await clientWithClick(t);
    await s.send('checkout.session.completed', checkout({ client_reference_id: other.clickId }));
    expect(await s.latest()).toEqual({ outcome: 'unattributed', saleId: null, reason: 'no_lead' });
    expect(await s.sales()).toEqual([]);
  });

  it('a guest checkout without a Stripe customer: the e-mail is the customer, else the session id and "Stripe customer"', async () => {
    const s = await shop();
    await s.send(
      'checkout.session.completed',
      checkout({
        client_reference_id: s.clickId,
        customer: null,
        customer_creation: 'if_required',
        customer_details: { address: null, email: 'guest@example.com', name: null, phone: null, tax_exempt: 'none', tax_ids: [] },
      }),
    );
    const sessionId = 'cs_test_guest_without_email_0001';
    await s.send('checkout.session.completed', checkout({ id: sessionId, client_reference_id: s.clickId, customer: null, customer_details: null }));
    const sales = await s.sales();
    expect(sales.map((x) => [x.customerExternalId, x.customerName, x.customerEmail])).toEqual([
      ['guest@example.com', 'guest@example.com', 'guest@example.com'],
      [sessionId, 'Stripe customer', null],
    ]);
  });

  it('an unpaid completed session (a delayed payment) makes no sale; async_payment_succeeded then does', async () => {
    const s = await shop();
    const object = checkout({
      client_reference_id: s.clickId,
      payment_status: 'unpaid',
      currency: 'eur',
      amount_total: 12900,
      payment_method_types: ['sepa_debit'],
    });
    await s.send('checkout.session.completed', object);
    expect(await s.latest()).toEqual({ outcome: 'ignored', saleId: null });
    expect(await s.sales()).toEqual([]);
    await s.send('checkout.session.async_payment_succeeded', { ...object, payment_status: 'paid' });
    const [sale] = await s.sales();
    expect(sale).toMatchObject({ linkId: s.link.id, amount: 12900, currency: 'eur', eventName: 'Purchase' });
    expect(await s.latest()).toEqual({ outcome: 'sale', saleId: sale!.id });
  });
});

/** A subscription checkout: no payment intent on the session, the first invoice's id instead. */
const subscriptionCheckout = (s: Shop, o: Record<string, unknown> = {}) =>
  checkout({
    mode: 'subscription',
    client_reference_id: s.clickId,
    payment_intent: null,
    invoice: stripeId('in'),
    subscription: stripeId('sub'),
    amount_total: 1900,
    ...o,
  });

const invoice = (o: Record<string, unknown>) => ({
  id: stripeId('in'),
  amount_paid: 1900,
  amount_due: 1900,
  payment_intent: stripeId('pi'),
  billing_reason: 'subscription_cycle',
  ...o,
});

describe('subscriptions: invoice.paid', () => {
  it('a subscription checkout and its first invoice are one sale, not two; the next invoice is a renewal on the same link', async () => {
    const s = await shop();
    const session = subscriptionCheckout(s);
    await s.send('checkout.session.completed', session);
    const [first] = await s.sales();
    await s.send('invoice.paid', invoice({ id: session.invoice, customer: session.customer, billing_reason: 'subscription_create' }));
    expect(await s.latest()).toEqual({ outcome: 'duplicate', saleId: first!.id });
    expect(await s.sales()).toHaveLength(1);

    await s.send('invoice.paid', invoice({ customer: session.customer, customer_name: 'Ada Lovelace', customer_email: 'ada@example.com' }));
    const [, renewal, ...more] = await s.sales();
    expect(more).toEqual([]);
    expect(renewal).toMatchObject({ eventName: 'Subscription', linkId: s.link.id, amount: 1900, currency: 'usd', customerExternalId: session.customer });
    expect(await s.latest()).toEqual({ outcome: 'renewal', saleId: renewal!.id });
    expect(await s.revenue()).toEqual({ amount: 3800, sales: 2 });
  });

  it('the first invoice before its checkout: still one sale', async () => {
    const s = await shop();
    const session = subscriptionCheckout(s);
    await s.send('invoice.paid', invoice({ id: session.invoice, customer: session.customer, billing_reason: 'subscription_create' }));
    expect(await s.latest()).toEqual({ outcome: 'unattributed', saleId: null, reason: 'no_customer' });
    await s.send('checkout.session.completed', session);
    expect(await s.sales()).toHaveLength(1);
    expect((await s.latest()).outcome).toBe('sale');
  });

  it('a trial checkout (nothing paid) makes no sale but remembers the customer; its first paid invoice is attributed', async () => {
    const s = await shop();
    const trial = subscriptionCheckout(s, { payment_status: 'no_payment_required', amount_total: 0, amount_subtotal: 0 });
    await s.send('checkout.session.completed', trial);
    expect(await s.latest()).toEqual({ outcome: 'ignored', saleId: null });
    // The trial's own invoice is paid with 0: no revenue, no sale.
    await s.send(
      'invoice.paid',
      invoice({ id: trial.invoice, customer: trial.customer, amount_paid: 0, amount_due: 0, payment_intent: null, billing_reason: 'subscription_create' }),
    );
    expect(await s.sales()).toEqual([]);
    await s.send('invoice.paid', invoice({ customer: trial.customer, amount_paid: 2900 }));
    const [sale] = await s.sales();
    expect(sale).toMatchObject({ eventName: 'Subscription', linkId: s.link.id, clickId: s.clickId, amount: 2900, customerExternalId: trial.customer });
    expect(await s.latest()).toEqual({ outcome: 'renewal', saleId: sale!.id });
  });

  it("a trial of a customer the app tracked a lead for: the paid invoice follows that customer's latest lead", async () => {
    const s = await shop();
    const lead = await s.api.okLead({ clickId: s.clickId, eventName: 'Sign up', customerExternalId: 'acct-77', customerName: 'Grace' });
    const trial = subscriptionCheckout(s, {
      client_reference_id: 'acct-77',
      metadata: { customerExternalId: 'acct-77' },
      payment_status: 'no_payment_required',
      amount_total: 0,
    });
    await s.send('checkout.session.completed', trial);
    await s.send('invoice.paid', invoice({ customer: trial.customer, amount_paid: 2900, customer_name: 'Grace Hopper' }));
    const [sale] = await s.sales();
    expect(sale).toMatchObject({ leadId: lead.id, linkId: s.link.id, customerExternalId: 'acct-77', customerName: 'Grace Hopper' });
  });

  it('an invoice of a Stripe customer no checkout named: unattributed', async () => {
    const s = await shop();
    await s.send('invoice.paid', invoice({ customer: stripeId('cus') }));
    expect(await s.latest()).toEqual({ outcome: 'unattributed', saleId: null, reason: 'no_customer' });
    expect(await s.sales()).toEqual([]);
  });
});

describe('charge.refunded: revenue net of refunds', () => {
  const refund = (paymentIntent: unknown, amountRefunded: number) => ({
    payment_intent: paymentIntent,
    amount_refunded: amountRefunded,
    refunded: amountRefunded >= 4900,
  });

  it('a partial then a full refund: refundedAmount follows the cumulative amount_refunded, analytics count the net, the sale stays one sale', async () => {
    const s = await shop();
    const session = checkout({ client_reference_id: s.clickId, amount_total: 4900 });
    await s.send('checkout.session.completed', session);
    const [sale] = await s.sales();
    expect(await s.rolledUp()).toEqual({ amount: 4900, sales: 1 });

    await s.send('charge.refunded', refund(session.payment_intent, 1000));
    expect(await s.latest()).toEqual({ outcome: 'refund', saleId: sale!.id });
    expect((await s.sales())[0]!.refundedAmount).toBe(1000);
    expect(await s.revenue()).toEqual({ amount: 3900, sales: 1 });
    expect(await s.rolledUp()).toEqual({ amount: 3900, sales: 1 });

    await s.send('charge.refunded', refund(session.payment_intent, 4900));
    expect((await s.sales())[0]).toMatchObject({ amount: 4900, refundedAmount: 4900 });
    expect(await s.revenue()).toEqual({ amount: 0, sales: 1 });
    expect(await s.rolledUp()).toEqual({ amount: 0, sales: 1 });

    // An older event arriving late (a smaller cumulative total) undoes nothing.
    await s.send('charge.refunded', refund(session.payment_intent, 1000));
    expect((await s.sales())[0]!.refundedAmount).toBe(4900);
    expect(await s.revenue()).toEqual({ amount: 0, sales: 1 });
  });

  it('a refund that arrives before its sale is kept and applied when the sale is made', async () => {
    const s = await shop();
    const session = checkout({ client_reference_id: s.clickId, amount_total: 4900 });
    await s.send('charge.refunded', refund(session.payment_intent, 1500));
    expect(await s.latest()).toEqual({ outcome: 'refund', saleId: null });
    expect(await s.sales()).toEqual([]);
    await s.send('checkout.session.completed', session);
    const [sale] = await s.sales();
    expect(sale).toMatchObject({ amount: 4900, refundedAmount: 1500 });
    expect(await s.revenue()).toEqual({ amount: 3400, sales: 1 });
    expect(await s.rolledUp()).toEqual({ amount: 3400, sales: 1 });
  });

  it("a renewal's refund applies to the renewal (its invoice's payment intent)", async () => {
    const s = await shop();
    const session = subscriptionCheckout(s);
    await s.send('checkout.session.completed', session);
    const renewal = invoice({ customer: session.customer });
    await s.send('invoice.paid', renewal);
    await s.send('charge.refunded', refund(renewal.payment_intent, 1900));
    const sales = await s.sales();
    expect(sales.map((x) => [x.eventName, x.refundedAmount])).toEqual([
      ['Purchase', 0],
      ['Subscription', 1900],
    ]);
    expect(await s.revenue()).toEqual({ amount: 1900, sales: 2 });
  });

  it('a refund without a payment intent: unattributed', async () => {
    const s = await shop();
    await s.send('charge.refunded', refund(null, 100));
    expect(await s.latest()).toEqual({ outcome: 'unattributed', saleId: null, reason: 'no_sale' });
  });
});

describe('test mode', () => {
  it('livemode false on a connection without testMode: listed as test_mode, no sale', async () => {
    const s = await shop();
    await s.send('checkout.session.completed', checkout({ client_reference_id: s.clickId }), { livemode: false });
    expect(await s.latest()).toEqual({ outcome: 'test_mode', saleId: null });
    expect(await s.sales()).toEqual([]);
    expect(await s.revenue()).toEqual({ amount: 0, sales: 0 });
  });

  it('with testMode, test events make sales too', async () => {
    const s = await shop({ testMode: true });
    await s.send('checkout.session.completed', checkout({ client_reference_id: s.clickId }), { livemode: false });
    expect((await s.latest()).outcome).toBe('sale');
    expect(await s.sales()).toHaveLength(1);
  });
});

export type { Link };

describe('webhooks (operations.md §11)', () => {
  it("a Stripe sale is a sale like any other: its sale.created event, with the Event record, is queued in the sale's transaction", async () => {
    const s = await shop();
    // Registered by SQL: the API resolves the URL, and this machine resolves no public name.
    const endpointId = randomUUID();
    await t.database.db.execute(sql`INSERT INTO webhook_endpoints (id, workspace_id, url, events, created_by, secret_sealed)
      VALUES (${endpointId}, ${s.api.ws.id}, 'https://hooks.example/in', '{sale.created}', '{"type":"key","id":"k"}', 'x')`);
    await s.send('checkout.session.completed', checkout({ client_reference_id: s.clickId, amount_total: 1200, currency: 'eur' }));
    await s.send('charge.refunded', { object: 'charge', payment_intent: stripeId('pi'), amount_refunded: 100 }); // another payment: no sale, no event
    const [sale] = await s.sales();
    const queued = await rows<{ body: string }>(
      t.database.db,
      sql`SELECT e.body FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id WHERE d.endpoint_id = ${endpointId}::uuid`,
    );
    expect(queued.map((q) => JSON.parse(q.body) as { type: string; data: { id: string; amount: number; type: string } })).toEqual([
      expect.objectContaining({ type: 'sale.created', data: expect.objectContaining({ id: sale!.id, type: 'sale', amount: 1200 }) }),
    ]);
  });
});
