import type { EventType } from './event-types.js';

/**
 * The OpenAPI 3.1 top-level `webhooks` object (operations.md §11): one entry per event type, the
 * POST a receiver gets. `data` is the record exactly as the API shows it, by reference to the
 * schema the API answers with, so a generated client types both the same way.
 */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const HEADERS = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: "The event's id: the same on every attempt, so a receiver ignores one it has seen (for link.clicked, the click id)",
    schema: { type: 'string' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds of this attempt (a retry is signed anew); reject one too far from your clock',
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, keyed with the base64-decoded part of the `whsec_` secret; one per active secret (two for 24 hours after a roll), space-separated. Any Standard Webhooks library verifies it.',
    schema: { type: 'string' },
  },
];

const EVENTS: { type: EventType; summary: string; data: Record<string, unknown> }[] = [
  { type: 'link.created', summary: 'A link was created (one event per link of a bulk write or an import)', data: ref('Link') },
  { type: 'link.updated', summary: 'A link was changed; data is the link after the change', data: ref('Link') },
  { type: 'link.deleted', summary: 'A link was deleted; data is the link as it was before', data: ref('Link') },
  {
    type: 'link.clicked',
    summary: 'A click was recorded (not for bots, HEAD requests or prefetches); data is the Click, with its linkId; webhook-id is the click id',
    data: ref('Click'),
  },
  { type: 'lead.created', summary: 'A lead was recorded; data is the Event as GET /api/events shows it', data: ref('Event') },
  { type: 'sale.created', summary: 'A sale was recorded; data is the Event as GET /api/events shows it', data: ref('Event') },
  {
    type: 'partner.enrolled',
    summary: 'A partner was approved into the program (created approved, or moved to approved); data is the Partner',
    data: ref('Partner'),
  },
  {
    type: 'commission.created',
    summary:
      'A commission was earned (a lead, a sale, a click day) or added by hand (custom, also the clawback of a refund after payout); data is the Commission',
    data: ref('Commission'),
  },
  {
    type: 'commission.updated',
    summary:
      "A commission's status or earnings changed: released, reversed (by hand, a ban or rejection, a whole refund), or a refund's new net; data is the Commission after the change. Commissions paid by a payout are told by payout.completed instead",
    data: ref('Commission'),
  },
  { type: 'payout.completed', summary: 'A payout was marked paid; data is the Payout with its items', data: ref('Payout') },
  {
    type: 'webhook.test',
    summary: 'Sent on request by POST /api/webhooks/{id}/test, to that endpoint only',
    data: { type: 'object', required: ['webhookId'], properties: { webhookId: { type: 'string', format: 'uuid', description: 'The endpoint tested' } } },
  },
];

function operation(e: (typeof EVENTS)[number]) {
  return {
    post: {
      operationId: `webhook_${e.type.replace('.', '_')}`,
      tags: ['Webhooks'],
      summary: e.summary,
      description:
        'Standard Webhooks (standardwebhooks.com). Answer 2xx to acknowledge; anything else (redirects are not followed), a timeout of 10 s or a refused connection is retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (a longer `Retry-After` on 429 or 503 is honoured); 410 Gone disables the endpoint. Delivery is at least once and order is not promised.',
      parameters: HEADERS,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['type', 'timestamp', 'data'],
              properties: {
                type: { type: 'string', enum: [e.type] },
                timestamp: { type: 'string', format: 'date-time', description: 'When the event happened (ISO 8601)' },
                data: e.data,
              },
            },
          },
        },
      },
      responses: {
        '200': { description: 'Received (any 2xx)' },
        '410': { description: 'Gone: the endpoint is disabled at once' },
      },
    },
  };
}

export const webhooksDocument: Record<string, unknown> = Object.fromEntries(EVENTS.map((e) => [e.type, operation(e)]));
