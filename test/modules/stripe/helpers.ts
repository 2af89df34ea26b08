/**
 * Shared setup of the Stripe tests (operations.md §12): events built from the fixtures in
 * test/fixtures/stripe (shaped like Stripe's, API version 2024-06-20), signed with the official
 * `stripe` package the way Stripe signs them, and posted to a connection's webhook URL.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import Stripe from 'stripe';
import { expect } from 'vitest';
import { bearer, type TestApp } from '../../helpers/app.js';
import { asSession, signedInMember } from '../people/helpers.js';

const stripe = new Stripe('sk_test_only_used_to_sign_test_events');

/** A signing secret in Stripe's format. */
export const SIGNING_SECRET = `whsec_${randomBytes(24).toString('hex')}`;

export type StripeType = 'checkout.session.completed' | 'checkout.session.async_payment_succeeded' | 'invoice.paid' | 'charge.refunded';

export interface StripeEventBody {
  id: string;
  type: string;
  livemode: boolean;
  data: { object: Record<string, unknown> };
  [key: string]: unknown;
}

const fixture = (type: string): StripeEventBody =>
  JSON.parse(readFileSync(new URL(`../../fixtures/stripe/${type}.json`, import.meta.url), 'utf8')) as StripeEventBody;

/** The event types with a fixture of their own; any other type is built on checkout.session.completed's. */
const FIXTURES = new Set([
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'invoice.paid',
  'invoice.paid.parent',
  'charge.refunded',
  'charge.dispute.created',
  'charge.dispute.closed',
]);

/** A unique Stripe-style id with this prefix. */
export const stripeId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/**
 * The fixture of `type` with a fresh event id, its object's fields replaced by `object`
 * (undefined removes one), and `livemode` as given (both the event's and the object's).
 */
export function stripeEvent(type: StripeType | string, object: Record<string, unknown>, o: { id?: string; livemode?: boolean } = {}): StripeEventBody {
  const event = fixture(FIXTURES.has(type) ? type : 'checkout.session.completed');
  event.type = type;
  event.id = o.id ?? stripeId('evt');
  const target = event.data.object;
  for (const [k, v] of Object.entries(object)) {
    if (v === undefined) delete target[k];
    else target[k] = v;
  }
  if (o.livemode !== undefined) {
    event.livemode = o.livemode;
    target.livemode = o.livemode;
  }
  return event;
}

/** `Stripe-Signature` for `payload` as Stripe makes it (the official package). */
export function signature(payload: string, secret: string, timestamp?: number): string {
  return stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
}

/** Posts an event (or raw text) to a webhook URL, signed with `secret` unless `headers` says otherwise. */
export function postEvent(
  t: TestApp,
  webhookUrl: string,
  event: StripeEventBody | string,
  secret: string,
  o: { timestamp?: number; headers?: Record<string, string>; tamper?: (payload: string) => string } = {},
): Promise<LightMyRequestResponse> {
  const payload = typeof event === 'string' ? event : JSON.stringify(event, null, 2);
  const header = signature(payload, secret, o.timestamp);
  return t.inject({
    method: 'POST',
    url: new URL(webhookUrl).pathname,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'stripe-signature': header,
      'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      ...o.headers,
    },
    payload: o.tamper ? o.tamper(payload) : payload,
  });
}

export interface Connection {
  id: string;
  webhookUrl: string;
  status: string;
  testMode: boolean;
}

export type OwnerRequest = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) => Promise<LightMyRequestResponse>;

/** Requests as a newly signed-in owner of `ws` (operations.md §12: connecting is the owner's, by session). */
export async function stripeOwner(t: TestApp, ws: { id: string }): Promise<OwnerRequest> {
  const { cookie } = await signedInMember(t, ws.id, 'owner');
  return (method, url, payload) => asSession(t, cookie, method, url, payload, { workspaceId: ws.id });
}

/** Both steps as an owner of `ws`: POST, then PUT the signing secret. */
export async function connectStripe(t: TestApp, ws: { id: string }, o: { secret?: string; testMode?: boolean } = {}): Promise<Connection> {
  const owner = await stripeOwner(t, ws);
  const created = await owner('POST', '/api/integrations/stripe');
  expect(created.statusCode, created.body).toBe(201);
  const put = await owner('PUT', '/api/integrations/stripe', { signingSecret: o.secret ?? SIGNING_SECRET, testMode: o.testMode });
  expect(put.statusCode, put.body).toBe(200);
  return put.json<Connection>();
}

export interface ReceivedEvent {
  id: string;
  stripeId: string;
  type: string;
  livemode: boolean;
  outcome: string;
  saleId: string | null;
  reason: string | null;
  createdAt: string;
}

/** GET /api/integrations/stripe/events, newest first. */
export async function receivedEvents(t: TestApp, key: string, query = ''): Promise<ReceivedEvent[]> {
  const res = await t.inject({ method: 'GET', url: `/api/integrations/stripe/events${query}`, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<ReceivedEvent[]>();
}
