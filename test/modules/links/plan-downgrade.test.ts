/**
 * Issue 11 defect 10: a plan downgrade must not trap a link. Clearing a feature (null,
 * cloaked false, geo null or {}) is applied whatever the plan; only setting one needs it (an
 * update ignores it, a create is a 400). Links made on business, the workspace moved to free by
 * the operator, each feature cleared by PUT, and the short link then forwards without the gate —
 * over a real socket, where a link already visited is answered from the redirect cache, so the
 * cache must have learned of the change.
 */
import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { startFramableSite } from '../../helpers/framable-site.js';
import { ANDROID, DESKTOP, IPHONE } from '../../helpers/visitors.js';

const COUNTRY_HEADER = 'x-test-country';
const DEST = 'https://dest.example/home';

let t: TestApp;
let base: string;
let site: { url: string; close(): Promise<void> };

beforeAll(async () => {
  site = await startFramableSite();
  t = await startTestApp({ env: { ALLOW_PRIVATE_DESTINATIONS: 'true', COUNTRY_HEADER } });
  await t.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.runtime.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.close();
  await site?.close();
});

interface Link {
  id: string;
  shortUrl: string;
  [field: string]: unknown;
}

async function businessWorkspace() {
  const ws = await t.workspace({ plan: 'business', rateLimitPerMinute: 1_000_000 });
  const send = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown): Promise<LightMyRequestResponse> =>
    t.inject({
      method,
      url,
      headers: { ...bearer(ws.key), 'content-type': 'application/json' },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
  const col = await send('POST', '/api/collections', [{ name: 'c' }]);
  const collectionId = col.json<{ id: string }[]>()[0]!.id;
  return {
    id: ws.id,
    collectionId,
    send,
    async create(items: Record<string, unknown>[]): Promise<Link[]> {
      const res = await send(
        'POST',
        '/api/links',
        items.map((i) => ({ url: DEST, collectionId, ...i })),
      );
      expect(res.statusCode, res.body).toBe(201);
      return res.json<Link[]>();
    },
    async downgrade() {
      const res = await t.admin('PATCH', `/workspaces/${ws.id}`, { plan: 'free' });
      expect(res.statusCode, res.body).toBe(200);
    },
  };
}

/** Where the short link sends this visitor, over a real socket: a Location without our click id, or the status. */
async function visit(link: Link, headers: Record<string, string> = {}): Promise<string | number> {
  const res = await fetch(base + new URL(link.shortUrl).pathname, { redirect: 'manual', headers: { 'user-agent': DESKTOP, ...headers } });
  await res.arrayBuffer();
  if (res.status !== 302) return res.status;
  const to = new URL(res.headers.get('location')!);
  to.searchParams.delete('ltid');
  return to.href;
}

describe('after a downgrade to free', () => {
  it('PUT clears password, cloaked, geo, ios, android and expiry; the short link then forwards without the gate', async () => {
    const api = await businessWorkspace();
    const [locked, cloaked, geo, geoEmpty, devices, expired] = await api.create([
      { password: 'open sesame' },
      { url: site.url, cloaked: true },
      { geo: { DE: 'https://de.example/' } },
      { geo: { FR: 'https://fr.example/' } },
      { ios: 'https://ios.example/', android: 'https://android.example/' },
      { expiresAt: '2001-01-01T00:00:00Z', expiredUrl: 'https://gone.example/' },
    ]);
    const de = { [COUNTRY_HEADER]: 'DE' };
    const fr = { [COUNTRY_HEADER]: 'FR' };
    // Each gate works, and each link is visited twice so the redirect cache holds it.
    for (let i = 0; i < 2; i++) {
      expect(await visit(locked!)).toBe(401);
      expect(await visit(cloaked!)).toBe(200);
      expect(await visit(geo!, de)).toBe('https://de.example/');
      expect(await visit(geoEmpty!, fr)).toBe('https://fr.example/');
      expect(await visit(devices!, { 'user-agent': IPHONE })).toBe('https://ios.example/');
      expect(await visit(devices!, { 'user-agent': ANDROID })).toBe('https://android.example/');
      expect(await visit(expired!)).toBe('https://gone.example/');
    }

    await api.downgrade();
    const res = await api.send('PUT', '/api/links', [
      { id: locked!.id, password: null },
      { id: cloaked!.id, cloaked: false },
      { id: geo!.id, geo: null },
      { id: geoEmpty!.id, geo: {} },
      { id: devices!.id, ios: null, android: null },
      { id: expired!.id, expiresAt: null, expiredUrl: null },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const [a, b, c, d, e, f] = res.json<Link[]>();
    expect(a).toMatchObject({ password: null });
    expect(b).toMatchObject({ cloaked: false });
    expect(c).toMatchObject({ geo: null });
    expect(d).toMatchObject({ geo: null });
    expect(e).toMatchObject({ ios: null, android: null });
    expect(f).toMatchObject({ expiresAt: null, expiredUrl: null });
    const listed = await api.send('GET', '/api/links?take=100&sort=asc');
    expect(listed.json()).toEqual(res.json());

    for (let i = 0; i < 2; i++) {
      expect(await visit(locked!)).toBe(DEST);
      expect(await visit(cloaked!)).toBe(site.url);
      expect(await visit(geo!, de)).toBe(DEST);
      expect(await visit(geoEmpty!, fr)).toBe(DEST);
      expect(await visit(devices!, { 'user-agent': IPHONE })).toBe(DEST);
      expect(await visit(devices!, { 'user-agent': ANDROID })).toBe(DEST);
      expect(await visit(expired!)).toBe(DEST);
    }
  });

  it('cloaked null clears too; setting a feature in the same update is still ignored while the clearing applies', async () => {
    const api = await businessWorkspace();
    const [link] = await api.create([{ url: site.url, cloaked: true, password: 'pw' }]);
    await api.downgrade();
    const res = await api.send('PUT', '/api/links', [
      { id: link!.id, cloaked: null, password: null, ios: 'https://ios.example/', geo: { DE: 'https://de.example/' }, title: 'kept' },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<Link[]>()[0]).toMatchObject({ cloaked: false, password: null, ios: null, geo: null, title: 'kept' });
    expect(await visit(link!, { 'user-agent': IPHONE, [COUNTRY_HEADER]: 'DE' })).toBe(site.url);
  });

  it('a create on free may still say cloaked false and geo null or {}, but setting a feature is a 400', async () => {
    const api = await businessWorkspace();
    await api.downgrade();
    const ok = await api.create([{ cloaked: false, geo: null }, { geo: {} }]);
    expect(ok.map((l) => [l.cloaked, l.geo])).toEqual([
      [false, null],
      [false, null],
    ]);
    const refused = await api.send('POST', '/api/links', [{ url: DEST, collectionId: api.collectionId, password: 'pw' }]);
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().error.en).toMatch(/\[0\]\.password: .*password protection/);
  });
});
