import type { paths } from '../../api/schema.js';

/** The records of the webhooks routes (operations.md §11), as the OpenAPI document types them. */
export type Endpoint = paths['/api/webhooks/{id}']['get']['responses'][200]['content']['application/json'];
export type Delivery = paths['/api/webhooks/{id}/deliveries']['get']['responses'][200]['content']['application/json'][number];
export type DeliveryStatus = Delivery['status'];
export type Backlog = paths['/api/webhooks/backlog']['get']['responses'][200]['content']['application/json'][number];

/** The events an endpoint may subscribe to, and the read scopes each needs besides (the server's rule, told to the person before they ask). */
export const EVENT_SCOPES = {
  'link.created': ['linksRead'],
  'link.updated': ['linksRead'],
  'link.deleted': ['linksRead'],
  'link.clicked': ['analyticsRead'],
  'lead.created': ['analyticsRead', 'customersRead'],
  'sale.created': ['analyticsRead', 'customersRead'],
  'partner.enrolled': ['partnersRead', 'programsRead'],
  'commission.created': ['programsRead'],
  'commission.updated': ['programsRead'],
  'payout.completed': ['programsRead'],
} as const;
export type Subscribable = keyof typeof EVENT_SCOPES;
export type EventType = Subscribable | 'webhook.test';
export const EVENT_TYPES = Object.keys(EVENT_SCOPES) as Subscribable[];
