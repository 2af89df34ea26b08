import { Type } from '@sinclair/typebox';
import { DateTime, HTTPS_URL_PATTERN, Nullable, StringEnum, Uuid } from '../../http/schemas.js';

/**
 * The largest single sale, in minor units: far above any real sale (10 billion in a two-decimal
 * currency), and low enough that analytics totals of up to 9,007 such sales stay exact JSON numbers.
 */
export const MAX_SALE_AMOUNT = 1_000_000_000_000;

const customerFields = {
  customerExternalId: Type.String({ minLength: 1, maxLength: 100, description: 'Used to upsert the customer' }),
  customerName: Type.String({ maxLength: 100 }),
  customerEmail: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 100, description: 'null clears it' }))),
  customerAvatar: Type.Optional(
    Nullable(Type.String({ format: 'uri', maxLength: 2048, pattern: HTTPS_URL_PATTERN, description: 'https URL; null clears it' })),
  ),
};
const stripeCustomerId = Type.Optional(
  Type.String({
    pattern: '^cus_[A-Za-z0-9]{1,250}$',
    description:
      "Extension. The customer's Stripe customer id (cus_…), remembered for them: a later Stripe invoice.paid of that Stripe customer (a subscription made outside Stripe Checkout) is their sale, attributed to their latest lead",
  }),
);
const metadata = Type.Optional(Nullable(Type.Object({}, { additionalProperties: true, description: 'Stored with the event' })));

export const LeadInput = Type.Object(
  {
    clickId: Type.String({ maxLength: 100, description: 'Click id to attribute; "" = deferred: the customer’s most recent lead click' }),
    eventName: Type.String({ minLength: 1, maxLength: 255 }),
    ...customerFields,
    metadata,
    stripeCustomerId,
  },
  { description: 'One lead event. Every accepted call records a new event (retries included).' },
);

export const SaleInput = Type.Object(
  {
    customerExternalId: customerFields.customerExternalId,
    amount: Type.Integer({
      minimum: 0,
      maximum: MAX_SALE_AMOUNT,
      description: 'In the currency’s minor unit (cents); 0 to 10^12 (1,000,000,000,000), above is a 400',
    }),
    currency: Type.Optional(Type.String({ maxLength: 3, description: 'Lowercase ISO 4217 code; default usd' })),
    eventName: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Default Purchase' })),
    metadata,
    leadEventName: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Attributes the sale to the customer’s latest lead of this name' })),
    clickId: Type.Optional(Type.String({ maxLength: 100, description: 'Direct attribution to a click' })),
    invoiceId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 190,
        description:
          'Extension. The invoice the sale pays: a later sale naming an invoice id the workspace already has is stored but earns no partner commission.',
      }),
    ),
    couponCode: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 190,
        description:
          "Extension (partner programs). A coupon code the customer used, ignoring case. Attribution order: leadEventName, clickId, couponCode, the customer's latest lead. A code a partner holds (their couponCodes) records a click on the partner's default link with trigger coupon, counted nowhere as a click, and, for a customer seen for the first time, a lead named Coupon, so their later sales follow them; the sale earns for that partner. A code no partner holds, or a partner without a default link yet, is ignored.",
      }),
    ),
    customerName: customerFields.customerName,
    customerEmail: customerFields.customerEmail,
    customerAvatar: customerFields.customerAvatar,
    stripeCustomerId,
  },
  { description: 'Attribution order: leadEventName, then clickId, then the customer’s most recent lead; none: 400.' },
);

/** Where a lead or sale was reported from. */
export const EVENT_SOURCES = ['server', 'client', 'stripe', 'import'] as const;
export const EventSourceField = StringEnum(EVENT_SOURCES, {
  description:
    'Extension. Where it was reported from: server (the API with a key or token), client (a browser, with the publishable key), stripe (a payment), import (brought by an import)',
});

const eventFields = {
  id: Uuid,
  eventName: Type.String(),
  source: EventSourceField,
  clickId: Uuid,
  linkId: Uuid,
  customer: Type.Ref('Customer'),
  metadata: Nullable(Type.Object({}, { additionalProperties: true })),
  createdAt: DateTime,
};

export const LeadEvent = Type.Object(eventFields, { $id: 'LeadEvent' });

export const SaleEvent = Type.Object(
  {
    ...eventFields,
    amount: Type.Integer({ description: 'Minor units' }),
    currency: Type.String(),
    leadId: Nullable(Uuid),
    refundedAmount: Type.Optional(Type.Integer({ description: 'Extension, in the answer of POST /api/track/refund: the refunded total so far, minor units' })),
  },
  { $id: 'SaleEvent' },
);

export const RefundInput = Type.Object(
  {
    saleId: Type.Optional({ ...Uuid, description: 'The sale (the id POST /api/track/sale answered)' }),
    invoiceId: Type.Optional(Type.String({ minLength: 1, maxLength: 190, description: 'Or the invoice id the sale named (its first sale)' })),
    refundedAmount: Type.Integer({
      minimum: 0,
      maximum: MAX_SALE_AMOUNT,
      description: 'The refunded total so far, minor units: cumulative, never below what is recorded, never above the amount',
    }),
  },
  { description: 'Exactly one of saleId and invoiceId.' },
);
