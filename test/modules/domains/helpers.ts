import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { bearer, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';

/** A host no other run or test has claimed (the PostgreSQL test database is shared and kept). */
export const freshHost = (label = 'brand') => `${label}-${randomBytes(5).toString('hex')}.example`;

export function expectStatus(res: LightMyRequestResponse, status: number): void {
  expect(res.statusCode, res.body).toBe(status);
}

export interface Claimed {
  id: string;
  host: string;
  status: string;
  verification: { txtName: string; txtValue: string };
}

/** Calls of one workspace's key. */
export function api(t: TestApp, ws: WorkspaceFixture) {
  const send = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.inject({ method, url, headers: bearer(ws.key), payload: payload as object });
  return {
    send,
    claim: async (body: object): Promise<Claimed> => {
      const res = await send('POST', '/api/domains', body);
      expectStatus(res, 201);
      return res.json<Claimed>();
    },
    /** A collection to put links in. */
    collection: async (): Promise<string> => {
      const res = await send('POST', '/api/collections', [{ name: 'Imported' }]);
      expectStatus(res, 201);
      return res.json<{ id: string }[]>()[0]!.id;
    },
  };
}

/** A workspace holding `host` active (verified by the operator) with one link aliased on it. */
export async function activeHostWithLink(t: TestApp, o: { host?: string; rootUrl?: string; notFoundUrl?: string; link?: object; paths?: string[] } = {}) {
  const ws = await t.workspace();
  const a = api(t, ws);
  const host = o.host ?? freshHost();
  const claimed = await a.claim({ host, rootUrl: o.rootUrl, notFoundUrl: o.notFoundUrl });
  expectStatus(await t.admin('POST', `/domains/${claimed.id}/verify`), 200);
  const collectionId = await a.collection();
  const paths = o.paths ?? ['/spring'];
  const res = await a.send('POST', '/api/links', [
    { url: 'https://shop.example/sale', collectionId, aliases: paths.map((p) => `https://${host}${p}`), ...o.link },
  ]);
  expectStatus(res, 201);
  const link = res.json<{ id: string; shortUrl: string; aliases: string[] }[]>()[0]!;
  return { ws, api: a, host, domain: claimed, link, collectionId };
}
