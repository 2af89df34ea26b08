import type { Scope } from '../../core/scopes.js';

/** The events an endpoint subscribes to (operations.md §11); webhook.test is sent on request only. */
export const EVENT_TYPES = [
  'link.created',
  'link.updated',
  'link.deleted',
  'link.clicked',
  'lead.created',
  'sale.created',
  'partner.enrolled',
  'commission.created',
  'commission.updated',
  'payout.completed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number] | 'webhook.test';

/** Subscribing to a type also needs the read scope of its data. */
export const SCOPES_TO_SUBSCRIBE: Record<(typeof EVENT_TYPES)[number], readonly Scope[]> = {
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
};

/**
 * One event as the outbox stores it: `body` is the exact JSON sent, `{ type, timestamp, data }`;
 * or, when its record holds a secret, `bodySealed` is that JSON sealed ('webhook-body').
 */
export type OutboxEvent = {
  /** The webhook-id (for link.clicked, the click id). */
  id: string;
  workspaceId: string;
  type: EventType;
} & ({ body: string; bodySealed?: undefined } | { body?: undefined; bodySealed: string });

/**
 * A link.clicked event as the click writer hands it to the outbox: the click's id (the
 * webhook-id), workspace and time. Its body is composed from the stored click when sent.
 */
export interface ClickEventRef {
  id: string;
  workspaceId: string;
  /** ISO 8601, the click's createdAt. */
  createdAt: string;
}

/** The body every attempt of an event sends. */
export function eventBody(type: EventType, timestamp: Date | string, data: unknown): string {
  return JSON.stringify({ type, timestamp: typeof timestamp === 'string' ? timestamp : timestamp.toISOString(), data });
}
