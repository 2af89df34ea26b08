import { Type } from '@sinclair/typebox';
import { DateTime, DateTimeInput, listQueryProperties, Nullable, StringEnum, Uuid } from '../../http/schemas.js';
import { EVENT_TYPES } from './event-types.js';

/** Limits of a registration, shared by the request schemas and the service's own checks. */
export const URL_MAX_LENGTH = 2048;
export const DESCRIPTION_MAX_LENGTH = 500;
export const MAX_ENDPOINTS = 20;

export const DISABLED_REASONS = ['manual', 'gone', 'failing', 'grant_ended'] as const;
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const WebhookParam = Type.Object({ id: Uuid });
export const DeliveryParam = Type.Object({ id: Uuid, deliveryId: Uuid });
export const WebhookListQuery = Type.Object(listQueryProperties);
export const DeliveryListQuery = Type.Object({
  ...listQueryProperties,
  status: Type.Optional(
    StringEnum(DELIVERY_STATUSES, { description: 'Only the deliveries in this state (`pending`: waiting for an attempt, or one under way)' }),
  ),
});

const EventTypeList = Type.Array(
  // Plain strings: the service names the bad one (`events[2]`) and says which types exist.
  Type.String({ maxLength: 100 }),
  {
    minItems: 1,
    maxItems: EVENT_TYPES.length,
    description: `The event types to receive, each once: ${EVENT_TYPES.map((t) => `\`${t}\``).join(', ')}. Subscribing needs the read scope of the data too (link.* linksRead; link.clicked analyticsRead; lead.created and sale.created analyticsRead and customersRead).`,
  },
);
const Url = Type.String({
  minLength: 1,
  maxLength: URL_MAX_LENGTH,
  description:
    "Where events are POSTed: https, on a host whose every address is public (http, and private addresses, only inside the operator's WEBHOOK_ALLOWED_CIDRS). Resolved at registration and at every connection; redirects are not followed.",
});
const Description = Nullable(Type.String({ maxLength: DESCRIPTION_MAX_LENGTH }));

export const CreatedBy = Type.Object(
  {
    type: StringEnum(['key', 'user', 'app'] as const),
    id: Uuid,
    userId: Type.Optional(Uuid),
  },
  { description: 'Who registered it: an API key (its id), a person (their user id), or an OAuth app (its app id, and the person it acted for in `userId`)' },
);

const webhookFields = {
  id: Uuid,
  url: Type.String(),
  events: Type.Array(StringEnum(EVENT_TYPES)),
  description: Nullable(Type.String()),
  disabled: Type.Boolean(),
  disabledReason: Nullable(
    StringEnum(DISABLED_REASONS, {
      description:
        'Why it is disabled: `manual` (PATCH), `gone` (the receiver answered 410), `failing` (every delivery failed for 5 days), `grant_ended` (the OAuth app that registered it lost its grant; it cannot be enabled again)',
    }),
  ),
  failingSince: Nullable({ ...DateTime, description: 'Since when every delivery has failed; null when the latest succeeded or none was made' }),
  createdBy: CreatedBy,
  createdAt: DateTime,
  updatedAt: DateTime,
};

export const Webhook = Type.Object(webhookFields, {
  $id: 'Webhook',
  description: 'An endpoint the workspace sends its events to (Standard Webhooks). Its secret is never shown again after creation or a roll.',
});

export const CreatedWebhook = Type.Object(
  {
    ...webhookFields,
    secret: Type.String({ description: '`whsec_` + base64 of 32 random bytes (the HMAC key is the decoded bytes): shown only in this answer' }),
  },
  { $id: 'CreatedWebhook' },
);

export const WebhookCreate = Type.Object({ url: Url, events: EventTypeList, description: Type.Optional(Description) });

export const WebhookUpdate = Type.Object({
  url: Type.Optional(Url),
  events: Type.Optional(EventTypeList),
  description: Type.Optional(Description),
  disabled: Type.Optional(Type.Boolean({ description: 'true pauses deliveries; false enables it again and forgets its failing state' })),
});

export const NewWebhookSecret = Type.Object({
  secret: Type.String({ description: 'The new `whsec_…` secret, shown only in this answer' }),
  previousSecretExpiresAt: DateTime,
});

export const RecoverBody = Type.Object({
  since: { ...DateTimeInput, description: 'Every failed delivery created since then (at most 30 days ago, not in the future) is sent again' },
});

export const TestSent = Type.Object({ eventId: Uuid });
export const Recovered = Type.Object({ requeued: Type.Integer({ description: 'How many failed deliveries are pending again' }) });

export const WebhookDelivery = Type.Object(
  {
    id: Uuid,
    eventId: Type.String({ description: 'The `webhook-id` header of every attempt' }),
    eventType: Type.String(),
    status: StringEnum(DELIVERY_STATUSES),
    attempts: Type.Integer({ description: 'Attempts made so far' }),
    statusCode: Nullable(Type.Integer({ description: 'The HTTP status of the latest answer' })),
    error: Nullable(Type.String({ description: 'Why the latest attempt got no answer (timeout, refused connection, blocked address…)' })),
    durationMs: Nullable(Type.Integer()),
    response: Nullable(Type.String({ description: 'The first 1 KB of the latest answer' })),
    nextAttemptAt: Nullable(DateTime),
    lastAttemptAt: Nullable(DateTime),
    createdAt: DateTime,
  },
  { $id: 'WebhookDelivery', description: 'One event sent to one endpoint, with the outcome of its latest attempt. Kept 30 days.' },
);

export const WebhookBacklog = Type.Object(
  {
    webhookId: Uuid,
    pending: Type.Integer({ description: 'Deliveries not yet succeeded or failed: due, under way, or waiting for a retry' }),
    due: Type.Integer({
      description: 'Of them, those due now (waiting for a free slot, or under way): how far behind delivery is. Deliveries waiting for a retry are not due.',
    }),
    oldestDueAt: Nullable({
      ...DateTime,
      description: 'When the longest-waiting due delivery became due (delivery is behind by now minus this); null when none is due',
    }),
  },
  { $id: 'WebhookBacklog', description: "An endpoint's deliveries still to send, as of the answer" },
);
