import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../http/schemas.js';
import { STRIPE_EVENT_TYPES } from './mapping.js';

export const OUTCOMES = ['sale', 'renewal', 'refund', 'dispute', 'duplicate', 'unattributed', 'test_mode', 'ignored'] as const;
export const UNATTRIBUTED_REASONS = ['no_customer', 'no_lead', 'no_sale'] as const;

export const StripeConnection = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'A random id: the webhook URL is the only place it appears' }),
    webhookUrl: Type.String({ description: 'BASE_URL/webhooks/stripe/{id}: add it in Stripe (Developers → Webhooks) for `events`' }),
    status: StringEnum(['pending', 'connected'] as const, { description: 'pending until the signing secret is given' }),
    connectedAt: Nullable({ ...DateTime, description: 'When the signing secret was first given' }),
    events: Type.Array(StringEnum(STRIPE_EVENT_TYPES), { description: 'The event types to send from Stripe' }),
    testMode: Type.Boolean({ description: 'true: test-mode events (livemode false) make sales too; false: they are listed as test_mode' }),
    apiVersion: Type.String({ description: 'The Stripe API version the events are read as (2024-06-20)' }),
    createdAt: DateTime,
  },
  { $id: 'StripeConnection', description: "Extension: the workspace's Stripe connection. The signing secret is never shown." },
);

export const StripeConnect = Type.Object(
  {
    signingSecret: Type.String({
      pattern: '^whsec_[A-Za-z0-9+/=_-]{16,200}$',
      description: "The endpoint's signing secret from Stripe (whsec_…); stored sealed, never shown again",
    }),
    testMode: Type.Optional(Type.Boolean({ default: false, description: 'Make sales of test-mode events too (default false)' })),
  },
  { description: 'Step two of connecting: the signing secret Stripe shows for the endpoint made with webhookUrl' },
);

export const StripeEventRecord = Type.Object(
  {
    id: Uuid,
    stripeId: Type.String({ description: "Stripe's event id (evt_…)" }),
    type: Type.String({ description: 'Stripe event type' }),
    livemode: Type.Boolean(),
    outcome: StringEnum(OUTCOMES, {
      description:
        "sale (a checkout made a sale), renewal (an invoice made a sale), refund (a refund applied, or kept for a sale not seen yet; also a dispute lost, a whole refund), dispute (charge.dispute.created: the sale's partner commission held with the reason dispute; charge.dispute.closed won: that hold released), duplicate (an event id seen within 30 days, or a payment already counted), unattributed (no click id of this workspace, no known customer, no lead, no sale for the payment: see reason), test_mode (livemode false on a connection without testMode), ignored (an event type or state that makes no sale)",
    }),
    saleId: Nullable({ ...Uuid, description: 'The sale made, refunded or disputed (GET /api/events?id=…)' }),
    reason: Nullable(
      StringEnum(UNATTRIBUTED_REASONS, {
        description:
          'Of an unattributed event: no_customer (an invoice whose Stripe customer id, subscription metadata.customerExternalId and e-mail name no one customer), no_lead (a customer without a lead or click), no_sale (a refund or dispute of a payment no sale holds)',
      }),
    ),
    createdAt: DateTime,
  },
  { $id: 'StripeEvent' },
);

export const WebhookParams = Type.Object({ id: Type.String({ maxLength: 200 }) });

export const Received = Type.Object({ received: Type.Literal(true) });
