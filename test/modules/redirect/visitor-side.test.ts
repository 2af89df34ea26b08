/**
 * The visitor side of issue 11: no stored destination can crash the process (defect 1, the
 * request-listener layer), visitors never get JSON (defect 9), the un-prefixed API forms
 * (operations.md §1), the short link's query passed on, and prefetches not counted (§5).
 * Over a real socket where the fast path matters, through inject elsewhere.
 */
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { isReservedShortId, newShortId } from '../../../src/modules/links/short-id.js';
import { bearer, startTestApp, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';
import { within } from '../../helpers/wait.js';

let t: TestApp;
let ws: WorkspaceFixture;
let base: string;
let collectionId: string;

beforeAll(async () => {
  t = await startTestApp({ env: { COUNTRY_HEADER: 'cf-ipcountry' } });
  await t.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.runtime.app.server.address() as AddressInfo).port}`;
  ws = await t.workspace({ plan: 'enterprise' });
  collectionId = (await t.inject({ method: 'POST', url: '/api/collections', headers: bearer(ws.key), payload: [{ name: 'c' }] })).json()[0].id;
});
afterAll(() => t.close());

async function newLink(fields: Record<string, unknown> = {}): Promise<{ id: string; path: string }> {
  const res = await t.inject({
    method: 'POST',
    url: '/api/links',
    headers: bearer(ws.key),
    payload: [{ url: 'https://dest.example/p?x=1', collectionId, ...fields }],
  });
  expect(res.statusCode, res.body).toBe(201);
  const l = res.json()[0];
  return { id: l.id, path: new URL(l.shortUrl).pathname };
}

const visit = (path: string, headers: Record<string, string> = {}) => fetch(base + path, { redirect: 'manual', headers });
const clickIds = async (linkId: string) => (await rows<{ id: string }>(t.database.db, sql`select id from clicks where link_id = ${linkId}`)).map((r) => r.id);

describe('a stored destination that cannot be a Location never takes the process down', () => {
  // Every character outside visible ASCII is percent-encoded as UTF-8: a 302 to that. A lone
  // surrogate cannot be stored (the database keeps U+FFFD in its place), so it redirects too.
  test.each([
    ['CR/LF in url', { url: 'https://x.example/a\r\nSet-Cookie: evil=1' }, {}, /^https:\/\/x\.example\/a%0D%0ASet-Cookie:%20evil=1\?ltid=[0-9a-f-]{36}$/],
    [
      'TAB and non-ASCII in a geo value, visited from that country',
      { geo: { DE: 'https://ü.example/\tpath?q=ü' } },
      { 'cf-ipcountry': 'DE' },
      /^https:\/\/%C3%BC\.example\/%09path\?q=%C3%BC&ltid=[0-9a-f-]{36}$/,
    ],
    [
      'non-BMP characters in ios, visited from an iPhone',
      { ios: 'https://x.example/😀' },
      { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)' },
      /^https:\/\/x\.example\/%F0%9F%98%80\?ltid=[0-9a-f-]{36}$/,
    ],
    ['a lone surrogate in url', { url: 'https://x.example/\ud800' }, {}, /^https:\/\/x\.example\/%EF%BF%BD\?ltid=[0-9a-f-]{36}$/],
  ])('%s: a 302 to it percent-encoded, twice (route, then fast path), and the server lives', async (_name, stored, headers, location) => {
    const link = await newLink({ geo: { FR: 'https://dest.example/fr' }, ios: 'https://dest.example/ios' });
    const set = stored as Record<string, unknown>;
    // Written straight into the table, as data stored before the URL rule would be.
    if (set.url) await t.database.db.execute(sql`update links set url = ${set.url as string} where id = ${link.id}`);
    if (set.geo) await t.database.db.execute(sql`update links set geo = ${JSON.stringify(set.geo)}::jsonb where id = ${link.id}`);
    if (set.ios) await t.database.db.execute(sql`update links set ios = ${set.ios as string} where id = ${link.id}`);
    for (let i = 0; i < 2; i++) {
      const res = await visit(link.path, headers);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toMatch(location);
      await res.arrayBuffer();
    }
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});

test('a link stored before the URL rule as https:host (or raw unicode) redirects to the absolute normalised URL', async () => {
  const link = await newLink({ geo: { FR: 'https://dest.example/fr' } });
  await t.database.db.execute(
    sql`update links set url = ${'https:old.example/p?q=1'}, geo = ${JSON.stringify({ FR: 'https://bücher.example/ü' })}::jsonb where id = ${link.id}`,
  );
  for (let i = 0; i < 2; i++) {
    const plain = await visit(link.path);
    expect(plain.status).toBe(302);
    expect(plain.headers.get('location')).toMatch(/^https:\/\/old\.example\/p\?q=1&ltid=/);
    const french = await visit(link.path, { 'cf-ipcountry': 'FR' });
    expect(french.headers.get('location')).toMatch(/^https:\/\/xn--bcher-kva\.example\/%C3%BC\?ltid=/);
  }
});

describe('visitors never get JSON', () => {
  test.each(['/a', '/abc-123', '/%', '/%zz', '/aB3dE9xQ/extra', '/zzzzzzzz', '/index.html', '/attribution.js/x'])('GET %s: the 404 HTML page', async (path) => {
    const res = await t.inject({ method: 'GET', url: path });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<h1>');
    expect(res.body).not.toContain('"error"');
  });

  test('GET and HEAD / go to the dashboard (short links share the origin; operations.md §10)', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await t.inject({ method, url: '/' });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('/app');
      expect(res.body).toBe('');
    }
  });

  test.each(['/api/nope', '/api/links/x/y', '/admin/nope', '/oauth/nope', '/api/%'])('GET %s keeps the JSON error body', async (path) => {
    const res = await t.inject({ method: 'GET', url: path, headers: { authorization: 'Bearer x' } });
    expect([400, 401, 404]).toContain(res.statusCode);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json().error.code).toBeTruthy();
  });
});

describe('the un-prefixed forms are the /api operations (api.md General rule 1)', () => {
  test.each(['/links', '/tags', '/collections', '/partners', '/customers', '/analytics', '/links?take=1', '/analytics?groupBy=country'])(
    'GET %s answers exactly as /api%s',
    async (path) => {
      // A workspace of its own, so no click written meanwhile changes the answer between the two.
      const quiet = await t.workspace();
      await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(quiet.key), payload: [{ name: 'one' }] });
      const plain = await t.inject({ method: 'GET', url: path, headers: bearer(quiet.key) });
      const api = await t.inject({ method: 'GET', url: `/api${path}`, headers: bearer(quiet.key) });
      expect(plain.statusCode).toBe(200);
      expect(plain.json()).toEqual(api.json());
      const anonymous = await t.inject({ method: 'GET', url: path });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json().error.code).toBe('credential_missing');
    },
  );

  test('POST /track/lead and /tags validate, authenticate and write like their /api forms', async () => {
    const bad = await t.inject({ method: 'POST', url: '/track/lead', headers: bearer(ws.key), payload: {} });
    const badApi = await t.inject({ method: 'POST', url: '/api/track/lead', headers: bearer(ws.key), payload: {} });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual(badApi.json());
    const created = await t.inject({ method: 'POST', url: '/tags', headers: bearer(ws.key), payload: [{ name: 'via-unprefixed' }] });
    expect(created.statusCode).toBe(201);
    const listed = await t.inject({ method: 'GET', url: '/api/tags', headers: bearer(ws.key) });
    expect(listed.json().map((tag: { name: string }) => tag.name)).toContain('via-unprefixed');
  });

  test('the OpenAPI document lists only the /api forms', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => /^\/(links|tags|collections|partners|customers|analytics|track)/.test(p))).toEqual([]);
  });

  test('generated short ids never take those names', () => {
    expect(isReservedShortId('partners')).toBe(true);
    expect(isReservedShortId('PARTNERS')).toBe(true);
    // A random source that first yields the bytes of "partners", then of "aaaaaaaa".
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    const bytesOf = (s: string) => Uint8Array.from([...s].map((c) => alphabet.indexOf(c)));
    const draws = [bytesOf('partnerspartners'), bytesOf('aaaaaaaaaaaaaaaa')];
    expect(newShortId(8, () => draws.shift()!)).toBe('aaaaaaaa');
  });
});

describe("the short link's own query reaches the destination (operations.md §5)", () => {
  test('route and fast path: visitor keys replace the destination and utm values; the click id is ours', async () => {
    const link = await newLink({ url: 'https://dest.example/p?x=1&utm_source=site', utm: { source: 'link', medium: 'email' } });
    for (let i = 0; i < 2; i++) {
      const res = await visit(`${link.path}?utm_source=newsletter&x=2&extra=%C3%A9&ltid=forged`);
      expect(res.status).toBe(302);
      const to = new URL(res.headers.get('location')!);
      expect(to.searchParams.getAll('utm_source')).toEqual(['newsletter']);
      expect(to.searchParams.getAll('utm_medium')).toEqual(['email']);
      expect(to.searchParams.getAll('x')).toEqual(['2']);
      expect(to.searchParams.get('extra')).toBe('é');
      expect(to.searchParams.getAll('ltid')).toHaveLength(1);
      expect(to.searchParams.get('ltid')).not.toBe('forged');
    }
  });

  test('raw bytes and control characters a visitor sends never break the Location', async () => {
    const link = await newLink();
    await visit(link.path); // cached: the fast path answers next
    const res = await visit(`${link.path}?q=%0D%0ASet-Cookie:x&raw=\u00e9`);
    expect(res.status).toBe(302);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('location')).toMatch(/^[\x21-\x7e]+$/);
  });
});

describe('prefetches are answered but not counted (operations.md §5)', () => {
  test.each([
    ['Sec-Purpose: prefetch', { 'sec-purpose': 'prefetch' }],
    ['Sec-Purpose: prefetch;prerender', { 'sec-purpose': 'prefetch;prerender' }],
    ['Purpose: prefetch', { purpose: 'prefetch' }],
    ['X-Moz: prefetch', { 'x-moz': 'prefetch' }],
  ])('%s: 302 on the route and on the fast path, no click', async (_name, headers) => {
    const link = await newLink();
    const counted = await visit(link.path); // a real visit, which also caches the link
    const countedId = new URL(counted.headers.get('location')!).searchParams.get('ltid')!;
    const prefetched: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await visit(link.path, headers);
      expect(res.status).toBe(302);
      prefetched.push(new URL(res.headers.get('location')!).searchParams.get('ltid')!);
    }
    const viaRoute = await t.inject({ method: 'GET', url: link.path, headers });
    expect(viaRoute.statusCode).toBe(302);
    // A real visit after them: clicks are written in order, so once it is stored, anything the
    // prefetches had recorded would be too.
    const after = new URL((await visit(link.path)).headers.get('location')!).searchParams.get('ltid')!;
    expect(await within(5000, async () => (await clickIds(link.id)).includes(after))).toBe(true);
    const stored = await clickIds(link.id);
    expect(stored.sort()).toEqual([countedId, after].sort());
    expect(prefetched.filter((id) => stored.includes(id))).toEqual([]);
  });
});
