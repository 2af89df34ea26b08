/**
 * Shared setup of the conversion tests (lead, sale, customers): a fresh workspace with a
 * collection used over HTTP the way a client would (links, clicks from visiting them, the
 * tracking calls, customers and per-link totals), the response shapes, and the 400 check.
 */
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';

import { DESKTOP, UUID } from '../../helpers/visitors.js';

export { DESKTOP, UUID };
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export type Body = Record<string, unknown>;

/** Valid bodies with up to two fields set to a wrong value (or removed) and maybe a stray key. */
export function mutatedBodies(
  valid: fc.Arbitrary<Body>,
  field: fc.Arbitrary<string>,
  wrong: fc.Arbitrary<unknown>,
  anyJson: fc.Arbitrary<unknown>,
): fc.Arbitrary<Body> {
  return fc.tuple(valid, fc.array(fc.tuple(field, wrong), { maxLength: 2 }), fc.option(anyJson, { nil: undefined })).map(([b, changes, junk]) => {
    const out: Body = { ...b };
    for (const [k, v] of changes) {
      if (v === undefined) delete out[k];
      else out[k] = v;
    }
    if (junk !== undefined) out.junk = junk;
    return out;
  });
}

export interface Link {
  id: string;
  shortUrl: string;
}

export interface Customer {
  id: string;
  externalId: string;
  name: string | null;
  email: string | null;
  avatar: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface LeadEvent {
  id: string;
  eventName: string;
  clickId: string;
  linkId: string;
  customer: Customer;
  metadata: Record<string, unknown> | null;
  createdAt: string;
}

export interface SaleEvent extends LeadEvent {
  amount: number;
  currency: string;
  leadId: string | null;
}

export interface Totals {
  leads: number;
  sales: number;
  saleAmount: number;
}

/** A fresh workspace of `t` with a collection, used the way a client would. */
export async function conversionClient(t: TestApp) {
  const { ws, send, collectionId } = await workspaceWithCollection(t);

  const api = {
    ws,
    send,
    async link(): Promise<Link> {
      const res = await send('POST', '/api/links', [{ url: 'https://shop.example/landing', collectionId }]);
      expect(res.statusCode, res.body).toBe(201);
      return res.json<Link[]>()[0]!;
    },
    /** A visitor opens the short link; returns the click id the redirect hands out. */
    async click(link: Link): Promise<string> {
      const res = await t.inject({
        method: 'GET',
        url: new URL(link.shortUrl).pathname,
        remoteAddress: '81.2.69.160',
        headers: { 'user-agent': DESKTOP },
      });
      expect(res.statusCode, res.body).toBe(302);
      const clickId = new URL(res.headers.location as string).searchParams.get('ltid');
      expect(clickId).toMatch(UUID);
      return clickId!;
    },
    lead: (body: unknown, key?: string) => send('POST', '/api/track/lead', body, key),
    sale: (body: unknown, key?: string) => send('POST', '/api/track/sale', body, key),
    async okLead(body: Body): Promise<LeadEvent> {
      const res = await api.lead(body);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<LeadEvent>();
    },
    async okSale(body: Body): Promise<SaleEvent> {
      const res = await api.sale(body);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<SaleEvent>();
    },
    async customers(query = ''): Promise<Customer[]> {
      const res = await send('GET', `/api/customers?take=5000${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<Customer[]>();
    },
    /** Lead and sale events of the workspace, from the per-link analytics. */
    async totals(): Promise<Totals> {
      const res = await send('GET', '/api/analytics?groupBy=link&take=5000');
      expect(res.statusCode, res.body).toBe(200);
      const groups = res.json<Totals[]>();
      return {
        leads: groups.reduce((n, g) => n + g.leads, 0),
        sales: groups.reduce((n, g) => n + g.sales, 0),
        saleAmount: groups.reduce((n, g) => n + g.saleAmount, 0),
      };
    },
    /** What the workspace holds: events and customers. */
    async state() {
      return { totals: await api.totals(), customers: await api.customers('&sort=asc') };
    },
  };
  return api;
}

export type ConversionApi = Awaited<ReturnType<typeof conversionClient>>;

/** A 400 with the error shape; `field` (if given) is named in both languages. */
export function expect400(res: LightMyRequestResponse, field?: string, code = 'invalid_field') {
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json<{ error: { en: string; ar: string; code: string } }>();
  expect(body.error.code).toBe(code);
  expect(typeof body.error.en).toBe('string');
  expect(typeof body.error.ar).toBe('string');
  if (field !== undefined) {
    expect(body.error.en).toContain(` ${field}:`);
    expect(body.error.ar).toContain(field);
  }
}

/** A workspace of `t` with one link and one fresh click: the usual starting point. */
export async function clientWithClick(t: TestApp) {
  const api = await conversionClient(t);
  const link = await api.link();
  const clickId = await api.click(link);
  return { api, link, clickId };
}
