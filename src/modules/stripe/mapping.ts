/**
 * What a Stripe event means for Linktrail (operations.md §12), as pure functions of the event
 * object (Stripe API version 2024-06-20): which kind of sale or refund it is, who bought, and
 * the click it names. The service decides what to record from this.
 */

/** The event types a connection asks Stripe to send. */
export const STRIPE_EVENT_TYPES = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'invoice.paid',
  'charge.refunded',
  'charge.dispute.created',
  'charge.dispute.closed',
] as const;

export const STRIPE_API_VERSION = '2024-06-20';

export interface StripeEvent {
  id: string;
  type: string;
  livemode: boolean;
  object: Record<string, unknown>;
}

export interface Buyer {
  externalId: string;
  name: string;
  email?: string;
}

export type Meaning =
  | {
      kind: 'checkout';
      /** Paid now (payment_status paid, or the delayed payment succeeded): a sale. */
      paid: boolean;
      sessionId: string;
      amount: number | undefined;
      currency: string | undefined;
      clickId: string | undefined;
      buyer: Buyer;
      stripeCustomerId: string | undefined;
      invoiceId: string | undefined;
      paymentIntentId: string | undefined;
      /** The first promotion code id (promo_…) among the session's discounts. */
      promotionCode: string | undefined;
    }
  | {
      kind: 'invoice';
      invoiceId: string;
      amount: number | undefined;
      currency: string | undefined;
      stripeCustomerId: string | undefined;
      paymentIntentId: string | undefined;
      /** The subscription's metadata.customerExternalId, when the invoice carries one. */
      customerExternalId: string | undefined;
      name: string | undefined;
      email: string | undefined;
      /** The first promotion code id (promo_…) among the invoice's expanded discounts. */
      promotionCode: string | undefined;
    }
  | {
      kind: 'dispute';
      /** opened: its commission held; lost: a whole refund; won (or an inquiry closed): the hold released; other: nothing. */
      phase: 'opened' | 'lost' | 'won' | 'other';
      paymentIntentId: string | undefined;
    }
  | { kind: 'refund'; paymentIntentId: string | undefined; amountRefunded: number | undefined }
  | { kind: 'ignored' };

/** Reads the envelope Stripe posts; undefined when it is not an event (the body is then a 400). */
export function readEvent(body: unknown): StripeEvent | undefined {
  if (!isObject(body) || body.object !== 'event') return undefined;
  const { id, type, livemode, data } = body;
  if (typeof id !== 'string' || id === '' || id.length > 255 || typeof type !== 'string' || type.length > 255) return undefined;
  if (!isObject(data) || !isObject(data.object)) return undefined;
  return { id, type, livemode: livemode !== false, object: data.object };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A click id as a checkout may carry it: a UUID, optionally written `ltid_<uuid>`; anything else is no click id. */
export function clickIdIn(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const bare = value.startsWith('ltid_') ? value.slice(5) : value;
  return UUID.test(bare) ? bare.toLowerCase() : undefined;
}

/** A string Stripe gave, made storable: control characters and lone surrogates dropped, trimmed, at most `max` characters. */
export function cleanText(value: unknown, max = 100): string | undefined {
  if (typeof value !== 'string') return undefined;
  // By code point: a lone surrogate comes as one of its own.
  const cleaned = Array.from(value).filter(storable).join('').trim();
  const cut = [...cleaned].slice(0, max).join('').trim();
  return cut === '' ? undefined : cut;
}

function storable(ch: string): boolean {
  const c = ch.codePointAt(0)!;
  return c >= 0x20 && !(c >= 0x7f && c <= 0x9f) && !(c >= 0xd800 && c <= 0xdfff);
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function email(value: unknown): string | undefined {
  const e = cleanText(value, 1000);
  return e && e.length <= 100 && EMAIL.test(e) ? e : undefined;
}

/**
 * An id Stripe gives as a string or, when expanded, as an object whose `id` is one. One level,
 * never recursive: a signed body may still nest 50,000 deep.
 */
function idOf(value: unknown): string | undefined {
  const id = isObject(value) ? value.id : value;
  return typeof id === 'string' && id !== '' && id.length <= 255 ? id : undefined;
}

/** A reference that is there but is no id in Stripe's shape: the event is not read (ignored). */
function malformedRef(value: unknown): boolean {
  return value !== undefined && value !== null && idOf(value) === undefined;
}

function amountOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function currencyOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value.toLowerCase() : undefined;
}

/**
 * Who bought, from a Checkout Session: the external id is metadata.customerExternalId, else the
 * Stripe customer id, else the e-mail, else the session id; the name is customer_details.name,
 * else the e-mail, else "Stripe customer".
 */
export function buyerOf(session: Record<string, unknown>, sessionId: string): Buyer {
  const details = isObject(session.customer_details) ? session.customer_details : {};
  const metadata = isObject(session.metadata) ? session.metadata : {};
  const mail = email(details.email) ?? email(session.customer_email);
  const externalId = cleanText(metadata.customerExternalId) ?? idOf(session.customer) ?? mail ?? sessionId;
  const name = cleanText(details.name) ?? mail ?? 'Stripe customer';
  return { externalId: externalId.slice(0, 100), name, ...(mail ? { email: mail } : {}) };
}

/** What the event means; `clickIdParam` is the query parameter the redirect hands click ids out in (CLICK_ID_PARAM). */
export function meaningOf(event: StripeEvent, clickIdParam: string): Meaning {
  const o = event.object;
  if ([o.customer, o.invoice, o.payment_intent].some(malformedRef)) return { kind: 'ignored' };
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const sessionId = idOf(o.id);
      if (!sessionId) return { kind: 'ignored' };
      const metadata = isObject(o.metadata) ? o.metadata : {};
      const paid = event.type === 'checkout.session.async_payment_succeeded' || o.payment_status === 'paid';
      return {
        kind: 'checkout',
        paid,
        sessionId,
        amount: amountOf(o.amount_total),
        currency: currencyOf(o.currency),
        clickId: clickIdIn(o.client_reference_id) ?? clickIdIn(metadata[clickIdParam]),
        buyer: buyerOf(o, sessionId),
        stripeCustomerId: idOf(o.customer),
        invoiceId: idOf(o.invoice),
        paymentIntentId: idOf(o.payment_intent),
        promotionCode: promotionCodeOf(o),
      };
    }
    case 'invoice.paid': {
      const invoiceId = idOf(o.id);
      if (!invoiceId) return { kind: 'ignored' };
      return {
        kind: 'invoice',
        invoiceId,
        amount: amountOf(o.amount_paid),
        currency: currencyOf(o.currency),
        stripeCustomerId: idOf(o.customer),
        paymentIntentId: idOf(o.payment_intent),
        customerExternalId: subscriptionExternalId(o),
        name: cleanText(o.customer_name),
        email: email(o.customer_email),
        promotionCode: promotionCodeOf(o),
      };
    }
    case 'charge.dispute.created':
      return { kind: 'dispute', phase: 'opened', paymentIntentId: idOf(o.payment_intent) };
    case 'charge.dispute.closed':
      return { kind: 'dispute', phase: closedPhase(o.status), paymentIntentId: idOf(o.payment_intent) };
    case 'charge.refunded':
      return { kind: 'refund', paymentIntentId: idOf(o.payment_intent), amountRefunded: amountOf(o.amount_refunded) };
    default:
      return { kind: 'ignored' };
  }
}

/**
 * The promotion code a Checkout Session or an invoice was paid with: `discounts[].promotion_code`
 * (a Session lists `{ coupon, promotion_code }`; an invoice lists discount ids unless expanded,
 * then Discount objects), else the older single `discount.promotion_code`. The first array
 * entries only: a signed body may still be huge.
 */
function promotionCodeOf(o: Record<string, unknown>): string | undefined {
  const discounts = Array.isArray(o.discounts) ? o.discounts.slice(0, 20) : [];
  for (const d of [...discounts, o.discount]) {
    const code = isObject(d) ? idOf(d.promotion_code) : undefined;
    if (code) return code;
  }
  return undefined;
}

/**
 * The invoice's subscription metadata.customerExternalId: `parent.subscription_details.metadata`
 * since API version 2025-03-31 (basil), `subscription_details.metadata` before it; both are read.
 */
function subscriptionExternalId(invoice: Record<string, unknown>): string | undefined {
  const parent = isObject(invoice.parent) ? invoice.parent : {};
  for (const details of [parent.subscription_details, invoice.subscription_details]) {
    const metadata = isObject(details) && isObject(details.metadata) ? details.metadata : {};
    const id = cleanText(metadata.customerExternalId);
    if (id) return id;
  }
  return undefined;
}

/** A closed dispute's status: lost, won, or an inquiry closed without a chargeback (warning_closed: nothing was taken). */
function closedPhase(status: unknown): 'lost' | 'won' | 'other' {
  if (status === 'lost') return 'lost';
  return status === 'won' || status === 'warning_closed' ? 'won' : 'other';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
