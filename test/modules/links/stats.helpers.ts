/**
 * Shared setup of the GET /api/links?withStats tests: a workspace used over HTTP as a client
 * would (links, visits through the redirect, lead and sale tracking, Stripe refunds), and
 * `settle()`, which makes the click writer store every click made so far (tracking a lead on a
 * fresh click of another workspace writes the queue up to that click).
 */
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { DESKTOP, UUID } from '../../helpers/visitors.js';
import { SIGNING_SECRET, connectStripe, postEvent, stripeEvent, stripeId } from '../stripe/helpers.js';

export type Money = Record<string, number>;

export interface Stats {
  clicks: number;
  leads: number;
  sales: number;
  revenue: Money;
  refunded: Money;
}

export interface StatLink {
  id: string;
  shortUrl: string;
  createdAt: string;
  tagIds: string[];
  collectionId: string;
  stats?: Stats;
}

export async function statsClient(t: TestApp) {
  const { ws, send, collectionId } = await workspaceWithCollection(t);
  let stripe: Awaited<ReturnType<typeof connectStripe>> | undefined;
  const api = {
    ws,
    send,
    collectionId,
    async links(items: Record<string, unknown>[]): Promise<StatLink[]> {
      const res = await send(
        'POST',
        '/api/links',
        items.map((i) => ({ url: 'https://shop.example/landing', collectionId, ...i })),
      );
      expect(res.statusCode, res.body).toBe(201);
      return res.json<StatLink[]>();
    },
    async click(link: { shortUrl: string }, ip = '81.2.69.160'): Promise<string> {
      const res = await t.inject({ method: 'GET', url: new URL(link.shortUrl).pathname, remoteAddress: ip, headers: { 'user-agent': DESKTOP } });
      expect(res.statusCode, res.body).toBe(302);
      const id = new URL(res.headers.location as string).searchParams.get('ltid');
      expect(id).toMatch(UUID);
      return id!;
    },
    async lead(clickId: string): Promise<void> {
      const res = await send('POST', '/api/track/lead', { clickId, eventName: 'Sign up', customerExternalId: `c-${clickId}`, customerName: 'C' });
      expect(res.statusCode, res.body).toBe(200);
    },
    async sale(clickId: string, amount: number, currency: string): Promise<void> {
      const res = await send('POST', '/api/track/sale', { clickId, amount, currency, customerExternalId: `c-${clickId}`, customerName: 'C' });
      expect(res.statusCode, res.body).toBe(200);
    },
    /** A Stripe checkout attributed to the click, then `refunded` of it refunded (charge.refunded). */
    async stripeSale(clickId: string, amount: number, currency: string, refunded: number): Promise<void> {
      stripe ??= await connectStripe(t, ws);
      const paymentIntent = stripeId('pi');
      const post = async (type: 'checkout.session.completed' | 'charge.refunded', object: Record<string, unknown>) => {
        const res = await postEvent(t, stripe!.webhookUrl, stripeEvent(type, object), SIGNING_SECRET);
        expect(res.statusCode, res.body).toBe(200);
      };
      await post('checkout.session.completed', {
        client_reference_id: clickId,
        amount_total: amount,
        currency,
        customer: stripeId('cus'),
        payment_intent: paymentIntent,
      });
      if (refunded > 0) await post('charge.refunded', { payment_intent: paymentIntent, amount_refunded: refunded, refunded: refunded === amount });
    },
    get: (query: string, key?: string): Promise<LightMyRequestResponse> => send('GET', `/api/links?${query}`, undefined, key),
    async list(query: string): Promise<StatLink[]> {
      const res = await api.get(query);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<StatLink[]>();
    },
  };
  return api;
}

/** Every click made so far is stored once this returns. */
export async function settle(t: TestApp): Promise<void> {
  const sentinel = await statsClient(t);
  const [link] = await sentinel.links([{}]);
  await sentinel.lead(await sentinel.click(link!));
}

export function expect400(res: LightMyRequestResponse, field: string, reasonCode: string) {
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json<{ error: { en: string; ar: string; code: string }; field: string; reason: string }>();
  expect([body.error.code, body.field, body.reason]).toEqual(['invalid_query', field, reasonCode]);
  expect(body.error.en).toContain(field);
  expect(body.error.ar).toMatch(/[\u0600-\u06FF]/);
}
