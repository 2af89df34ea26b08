import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { warmFastPath } from '../../helpers/fast-path.js';

// Over a real socket, cached links that simply forward are answered before Fastify. These
// tests check that path behaves exactly like the full route (which `inject` exercises).
let t: TestApp;
let base: string;
let key: string;
let collectionId: string;

beforeAll(async () => {
  t = await startTestApp({ env: { TRUST_PROXY: 'true' } });
  await t.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.runtime.app.server.address() as AddressInfo).port}`;
  const ws = await t.workspace();
  key = ws.key;
  collectionId = (await t.inject({ method: 'POST', url: '/api/collections', headers: bearer(key), payload: [{ name: 'c' }] })).json()[0].id;
});
afterAll(() => t.close());

async function link(fields: Record<string, unknown>) {
  const res = await t.inject({
    method: 'POST',
    url: '/api/links',
    headers: bearer(key),
    payload: [{ url: 'https://dest.example/p?x=1', collectionId, ...fields }],
  });
  expect(res.statusCode, res.body).toBe(201);
  const l = res.json()[0];
  return { id: l.id as string, path: new URL(l.shortUrl).pathname };
}

const get = (path: string, init: RequestInit = {}) => fetch(base + path, { redirect: 'manual', ...init });

async function clicksOf(linkId: string, expected: number) {
  for (let i = 0; i < 100; i++) {
    const found = await rows<{ id: string; country: string | null; device: string }>(
      t.database.db,
      sql`SELECT id, country, device FROM clicks WHERE link_id = ${linkId}`,
    );
    if (found.length >= expected) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('clicks not written');
}

describe('the redirect fast path', () => {
  test('a cached link forwards with UTM and click id, records the click, and skips the framework', async () => {
    const l = await link({ utm: { source: 'news' } });
    const first = await get(l.path); // loads the link through the full route
    expect(first.status).toBe(302);
    expect(first.headers.get('x-request-id')).toBeTruthy();
    await warmFastPath(base, l.path);
    const second = await get(l.path, { headers: { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)' } });
    expect(second.status).toBe(302);
    expect(second.headers.get('x-request-id')).toBeNull(); // answered before Fastify
    expect(second.headers.get('cache-control')).toBe('private, no-store');
    const location = new URL(second.headers.get('location')!);
    expect(location.origin + location.pathname).toBe('https://dest.example/p');
    expect(location.searchParams.get('x')).toBe('1');
    expect(location.searchParams.get('utm_source')).toBe('news');
    const ids = [first, second].map((r) => new URL(r.headers.get('location')!).searchParams.get('ltid'));
    const stored = await clicksOf(l.id, 2);
    expect(stored.map((c) => c.id).sort()).toEqual([...ids].sort());
    expect(stored.find((c) => c.id === ids[1])!.device).toBe('mobile');
  });

  test('a chosen key (operations.md §21) is answered before the framework too, with a trailing slash; its change reaches the fast path', async () => {
    const chosen = `fast-${randomBytes(4).toString('hex')}/Sale`;
    const l = await link({ key: chosen });
    expect(l.path).toBe(`/${chosen}`);
    expect((await get(l.path)).status).toBe(302);
    await warmFastPath(base, l.path);
    for (const path of [l.path, `${l.path}/`]) {
      const res = await get(path);
      expect(res.status).toBe(302);
      expect(res.headers.get('x-request-id')).toBeNull();
    }
    expect(await clicksOf(l.id, 3)).toHaveLength(3);
    // The link gives its key up: the cached key goes at once.
    const put = await t.inject({ method: 'PUT', url: '/api/links', headers: bearer(key), payload: [{ id: l.id, key: `${chosen}-2` }] });
    expect(put.statusCode, put.body).toBe(200);
    expect((await get(l.path)).status).toBe(404);
  });

  test('HEAD answers the same redirect without a click', async () => {
    const l = await link({});
    await get(l.path);
    const head = await get(l.path, { method: 'HEAD' });
    expect(head.status).toBe(302);
    expect(head.headers.get('location')).toContain('https://dest.example/p');
    await get(l.path);
    expect(await clicksOf(l.id, 2)).toHaveLength(2);
  });

  test('country targeting uses X-Forwarded-For under TRUST_PROXY, like the full route', async () => {
    const l = await link({ geo: { GB: 'https://gb.example/' } });
    await warmFastPath(base, l.path);
    const fromGb = await get(l.path, { headers: { 'x-forwarded-for': '81.2.69.160, 10.0.0.1' } });
    expect(fromGb.headers.get('x-request-id')).toBeNull();
    expect(fromGb.headers.get('location')).toMatch(/^https:\/\/gb\.example\/\?ltid=/);
    const fromUs = await get(l.path, { headers: { 'x-forwarded-for': '8.8.8.8' } });
    expect(fromUs.headers.get('location')).toMatch(/^https:\/\/dest\.example\/p\?x=1&ltid=/);
  });

  test('password, preview and changed links still get the full route', async () => {
    const locked = await link({ password: 'sesame' });
    await get(locked.path);
    const form = await get(locked.path);
    expect(form.status).toBe(401);
    expect(await form.text()).not.toContain('dest.example');

    const previewed = await link({ title: 'Hello preview' });
    await get(previewed.path);
    const bot = await get(previewed.path, { headers: { 'user-agent': 'Slackbot-LinkExpanding 1.0' } });
    expect(bot.status).toBe(200);
    expect(await bot.text()).toContain('og:title');

    const moved = await link({});
    await get(moved.path);
    const put = await t.inject({ method: 'PUT', url: '/api/links', headers: bearer(key), payload: [{ id: moved.id, url: 'https://moved.example/' }] });
    expect(put.statusCode).toBe(200);
    expect((await get(moved.path)).headers.get('location')).toMatch(/^https:\/\/moved\.example\/\?ltid=/);
    await t.inject({ method: 'DELETE', url: '/api/links', headers: bearer(key), payload: [moved.id] });
    expect((await get(moved.path)).status).toBe(404);
  });
});
