import type { LightMyRequestResponse } from 'fastify';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, bearer, startTestApp, type TestApp } from '../helpers/app.js';

/**
 * api.md "Authentication": every credential case, through HTTP on a real route (GET /api/tags).
 * The app's clock can be frozen by a test (expiry, lastUsedAt); it follows real time otherwise.
 */
let t: TestApp;
let frozen: Date | undefined;
const clock = () => frozen ?? new Date();

beforeAll(async () => {
  t = await startTestApp({ clock });
});

afterAll(async () => {
  await t?.close();
});

const ARABIC = /[\u0600-\u06FF]/;

type Headers = Record<string, string | string[]>;

const listTags = (headers: Headers) => t.inject({ method: 'GET', url: '/api/tags', headers });

/** 401 with the standard body: en, ar (Arabic), the code, and nothing of a 403/429. */
function expect401(res: LightMyRequestResponse, code: string): void {
  expect(res.statusCode, res.body).toBe(401);
  const body = res.json<{ error: { en: string; ar: string; code: string }; missingScopes?: unknown; retryAfter?: unknown }>();
  expect(body.error.code).toBe(code);
  expect(body.error.en.trim().length).toBeGreaterThan(0);
  expect(body.error.ar).toMatch(ARABIC);
  expect(body.missingScopes).toBeUndefined();
  expect(body.retryAfter).toBeUndefined();
  expect(res.headers['content-type']).toMatch(/^application\/json/);
}

function expectOk(res: LightMyRequestResponse): void {
  expect(res.statusCode, res.body).toBe(200);
  expect(Array.isArray(res.json())).toBe(true);
  // Authenticated answers carry the rate-limit headers.
  expect(res.headers['x-ratelimit-limit']).toBeDefined();
}

/** A well-formed key (lt_ + 43 base64url characters) that was never issued. */
function unknownKey(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let s = 'lt_';
  for (let i = 0; i < 43; i++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
  return s;
}

async function createTag(key: string, name: string): Promise<{ id: string; name: string }> {
  const res = await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(key), payload: [{ name }] });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; name: string }[]>()[0]!;
}

interface KeyView {
  id: string;
  lastUsedAt: string | null;
}

async function keysOf(workspaceId: string): Promise<KeyView[]> {
  const res = await t.admin('GET', `/workspaces/${workspaceId}/keys`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<KeyView[]>();
}

describe('accepted credentials', () => {
  it('accepts the key as "Authorization: Bearer <key>"', async () => {
    const w = await t.workspace();
    expectOk(await listTags({ authorization: `Bearer ${w.key}` }));
  });

  it('accepts the auth scheme name in any case ("bearer <key>")', async () => {
    const w = await t.workspace();
    expectOk(await listTags({ authorization: `bearer ${w.key}` }));
  });

  it('accepts the bare key as the Authorization value', async () => {
    const w = await t.workspace();
    expectOk(await listTags({ authorization: w.key }));
  });

  it('accepts the key in X-API-Key', async () => {
    const w = await t.workspace();
    expectOk(await listTags({ 'x-api-key': w.key }));
  });

  it('accepts the same key sent in both headers (one credential)', async () => {
    const w = await t.workspace();
    expectOk(await listTags({ authorization: `Bearer ${w.key}`, 'x-api-key': w.key }));
    expectOk(await listTags({ authorization: w.key, 'x-api-key': w.key }));
  });

  it("answers with the data of the key's workspace", async () => {
    const w = await t.workspace();
    const tag = await createTag(w.key, 'mine');
    const variants: Headers[] = [{ authorization: `Bearer ${w.key}` }, { authorization: w.key }, { 'x-api-key': w.key }];
    for (const headers of variants) {
      const res = await listTags(headers);
      expectOk(res);
      expect(res.json<{ id: string }[]>().map((x) => x.id)).toEqual([tag.id]);
    }
  });
});

describe('rejected credentials (401)', () => {
  it('rejects two different keys (credential_conflict), whichever header holds which', async () => {
    const w = await t.workspace();
    const other = await w.newKey();
    expect401(await listTags({ authorization: `Bearer ${w.key}`, 'x-api-key': other.key }), 'credential_conflict');
    expect401(await listTags({ authorization: other.key, 'x-api-key': w.key }), 'credential_conflict');
  });

  it('rejects two X-API-Key headers, different or identical (credential_conflict)', async () => {
    const w = await t.workspace();
    const other = await w.newKey();
    expect401(await listTags({ 'x-api-key': [w.key, other.key] }), 'credential_conflict');
    expect401(await listTags({ 'x-api-key': [w.key, w.key] }), 'credential_conflict');
  });

  it('rejects two Authorization headers, whatever their order or sameness (credential_conflict)', async () => {
    const w = await t.workspace();
    const other = await w.newKey();
    // Node keeps only the first Authorization in request.headers; the raw header list has both.
    expect401(await listTags({ authorization: [`Bearer ${w.key}`, `Bearer ${other.key}`] }), 'credential_conflict');
    expect401(await listTags({ authorization: [`Bearer ${w.key}`, 'Bearer lt_bogus'] }), 'credential_conflict');
    expect401(await listTags({ authorization: [`Bearer ${w.key}`, `Bearer ${w.key}`] }), 'credential_conflict');
    expect401(await listTags({ authorization: [w.key, `Bearer ${w.key}`] }), 'credential_conflict');
    expect401(await listTags({ authorization: [`Bearer ${w.key}`, ''] }), 'credential_conflict');
  });

  it('rejects a comma-joined list of credentials in one header (credential_conflict)', async () => {
    // What a proxy that folds repeated headers into one line would forward.
    const w = await t.workspace();
    const other = await w.newKey();
    expect401(await listTags({ authorization: `Bearer ${w.key}, Bearer ${other.key}` }), 'credential_conflict');
    expect401(await listTags({ authorization: `${w.key}, ${w.key}` }), 'credential_conflict');
    expect401(await listTags({ 'x-api-key': `${w.key},${other.key}` }), 'credential_conflict');
  });

  it('rejects a valid key sent alongside a different, bogus credential', async () => {
    const w = await t.workspace();
    const res = await listTags({ authorization: `Bearer ${w.key}`, 'x-api-key': 'something-else' });
    expect(res.statusCode).toBe(401);
    expect(res.json<{ error: { code: string } }>().error.code).toBe('credential_conflict');
  });

  it('rejects a request without any credential (credential_missing)', async () => {
    expect401(await listTags({}), 'credential_missing');
  });

  it.each([
    ['Authorization: Bearer (no key)', { authorization: 'Bearer' }],
    ['Authorization: Bearer + spaces', { authorization: 'Bearer    ' }],
    ['Authorization: Basic', { authorization: 'Basic abc' }],
    ['Authorization: Basic with a key-like value', { authorization: `Basic ${unknownKey()}` }],
    ['a short lt_ value', { authorization: 'lt_short' }],
    ['a short lt_ value in X-API-Key', { 'x-api-key': 'lt_short' }],
    ['a key one character too long', { authorization: `Bearer ${unknownKey()}A` }],
    ['a key with a character outside base64url', { authorization: `Bearer ${unknownKey().slice(0, -1)}*` }],
    ['a key followed by extra words', { authorization: `Bearer ${unknownKey()} extra` }],
    ['a token of no known kind', { authorization: 'Bearer some.jwt.like' }],
  ])('rejects a malformed credential: %s (credential_malformed)', async (_label, headers) => {
    expect401(await listTags(headers), 'credential_malformed');
  });

  it('rejects a well-formed key that was never issued (credential_invalid)', async () => {
    expect401(await listTags(bearer(unknownKey())), 'credential_invalid');
    expect401(await listTags({ 'x-api-key': unknownKey() }), 'credential_invalid');
  });

  it('rejects a real key with one character changed (credential_invalid)', async () => {
    const w = await t.workspace();
    const last = w.key.at(-1)!;
    const altered = w.key.slice(0, -1) + (last === 'A' ? 'B' : 'A');
    expect401(await listTags(bearer(altered)), 'credential_invalid');
    // The real key still works.
    expectOk(await listTags(bearer(w.key)));
  });

  it('rejects a revoked key on the very next request, in either header, while other keys keep working', async () => {
    const w = await t.workspace();
    const doomed = await w.newKey();
    expectOk(await listTags(bearer(doomed.key)));

    const revoked = await t.admin('DELETE', `/keys/${doomed.id}`);
    expect(revoked.statusCode, revoked.body).toBe(200);

    expect401(await listTags(bearer(doomed.key)), 'credential_revoked');
    expect401(await listTags({ 'x-api-key': doomed.key }), 'credential_revoked');
    expect401(await listTags({ authorization: doomed.key }), 'credential_revoked');
    // Revocation is for good, and only for that key.
    expect401(await listTags(bearer(doomed.key)), 'credential_revoked');
    expectOk(await listTags(bearer(w.key)));
  });

  it('rejects a revoked key for writes too, and writes nothing', async () => {
    const w = await t.workspace();
    const doomed = await w.newKey();
    expect((await t.admin('DELETE', `/keys/${doomed.id}`)).statusCode).toBe(200);
    const res = await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(doomed.key), payload: [{ name: 'ghost' }] });
    expect401(res, 'credential_revoked');
    const list = await listTags(bearer(w.key));
    expect(list.json()).toEqual([]);
  });

  it('rejects a key whose expiresAt is in the past (credential_expired)', async () => {
    const w = await t.workspace();
    const old = await w.newKey(undefined, { expiresAt: '2020-01-01T00:00:00.000Z' });
    expect401(await listTags(bearer(old.key)), 'credential_expired');
    expect401(await listTags({ 'x-api-key': old.key }), 'credential_expired');
  });

  it('accepts a key until its expiresAt and rejects it once the clock has passed it', async () => {
    const w = await t.workspace();
    const start = new Date(Math.floor(Date.now() / 1000) * 1000);
    const expiresAt = new Date(start.getTime() + 3_600_000);
    const key = await w.newKey(undefined, { expiresAt: expiresAt.toISOString() });
    try {
      frozen = start;
      expectOk(await listTags(bearer(key.key)));
      frozen = new Date(expiresAt.getTime() - 1000);
      expectOk(await listTags(bearer(key.key)));
      frozen = new Date(expiresAt.getTime() + 1000);
      expect401(await listTags(bearer(key.key)), 'credential_expired');
      frozen = new Date(expiresAt.getTime() + 86_400_000);
      expect401(await listTags({ 'x-api-key': key.key }), 'credential_expired');
      // The workspace's key without an expiry is unaffected by the passing time.
      expectOk(await listTags(bearer(w.key)));
    } finally {
      frozen = undefined;
    }
  });

  it('gives every 401 body en, ar and code, without requiring rate-limit headers', async () => {
    const w = await t.workspace();
    const revoked = await w.newKey();
    await t.admin('DELETE', `/keys/${revoked.id}`);
    const expired = await w.newKey(undefined, { expiresAt: '2021-06-01T00:00:00Z' });
    const other = await w.newKey();
    const cases: [Headers, string][] = [
      [{}, 'credential_missing'],
      [{ authorization: 'Basic abc' }, 'credential_malformed'],
      [bearer(unknownKey()), 'credential_invalid'],
      [bearer(revoked.key), 'credential_revoked'],
      [bearer(expired.key), 'credential_expired'],
      [{ authorization: w.key, 'x-api-key': other.key }, 'credential_conflict'],
    ];
    for (const [headers, code] of cases) {
      const res = await listTags(headers);
      expect401(res, code);
      const { error } = res.json<{ error: { en: string; ar: string } }>();
      expect(error.en).not.toBe(error.ar);
    }
  });

  it('rejects a credential on every method of the route, not just GET', async () => {
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      const res = await t.inject({ method, url: '/api/tags', headers: bearer(unknownKey()), payload: [] });
      expect401(res, 'credential_invalid');
      expect401(await t.inject({ method, url: '/api/tags', payload: [] }), 'credential_missing');
    }
  });
});

/** One HTTP/1.1 request written by hand, so repeated header lines reach the server as sent. */
async function rawRequest(lines: string[]): Promise<{ status: number; body: string }> {
  const { port } = t.runtime.app.server.address() as AddressInfo;
  const socket = connect(port, '127.0.0.1');
  socket.write([...lines, 'Host: lt.test', 'Connection: close', '', ''].join('\r\n'));
  let text = '';
  for await (const chunk of socket) text += String(chunk);
  const [head = '', body = ''] = text.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body };
}

describe('repeated credential headers over a real socket', () => {
  beforeAll(async () => {
    await t.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  });

  const code = (body: string) => (JSON.parse(body) as { error: { code: string } }).error.code;

  it('accepts one Authorization line, and refuses two (first valid) with 401 credential_conflict', async () => {
    const w = await t.workspace();
    const other = await w.newKey();
    const one = await rawRequest(['GET /api/tags HTTP/1.1', `Authorization: Bearer ${w.key}`]);
    expect(one.status, one.body).toBe(200);
    for (const second of [`Authorization: Bearer ${other.key}`, `authorization: Bearer ${w.key}`, 'AUTHORIZATION: Bearer lt_x']) {
      const two = await rawRequest(['GET /api/tags HTTP/1.1', `Authorization: Bearer ${w.key}`, second]);
      expect(two.status, two.body).toBe(401);
      expect(code(two.body)).toBe('credential_conflict');
    }
  });

  it('refuses two X-API-Key lines, even identical', async () => {
    const w = await t.workspace();
    const two = await rawRequest(['GET /api/tags HTTP/1.1', `X-API-Key: ${w.key}`, `x-api-key: ${w.key}`]);
    expect(two.status, two.body).toBe(401);
    expect(code(two.body)).toBe('credential_conflict');
  });

  it('refuses a second Authorization line on the operator API, even with the right token twice', async () => {
    const one = await rawRequest(['GET /admin/workspaces HTTP/1.1', `Authorization: Bearer ${ADMIN_TOKEN}`]);
    expect(one.status, one.body).toBe(200);
    for (const second of [`Authorization: Bearer ${ADMIN_TOKEN}`, 'Authorization: Bearer wrong']) {
      const two = await rawRequest(['GET /admin/workspaces HTTP/1.1', `Authorization: Bearer ${ADMIN_TOKEN}`, second]);
      expect(two.status, two.body).toBe(401);
      expect(code(two.body)).toBe('credential_conflict');
    }
  });
});

describe('workspace isolation', () => {
  it("a key of another workspace does not see this workspace's data", async () => {
    const a = await t.workspace();
    const b = await t.workspace();
    const tag = await createTag(a.key, 'only-in-a');
    await createTag(b.key, 'only-in-b');

    const inA = (await listTags(bearer(a.key))).json<{ id: string; name: string }[]>();
    const inB = (await listTags(bearer(b.key))).json<{ id: string; name: string }[]>();
    expect(inA.map((x) => x.name)).toEqual(['only-in-a']);
    expect(inB.map((x) => x.name)).toEqual(['only-in-b']);

    const byId = await t.inject({ method: 'GET', url: `/api/tags?id=${tag.id}`, headers: bearer(b.key) });
    expect(byId.statusCode).toBe(200);
    expect(byId.json()).toEqual([]);
  });

  it("a key of another workspace can neither update nor delete this workspace's records", async () => {
    const a = await t.workspace();
    const b = await t.workspace();
    const tag = await createTag(a.key, 'keep-me');

    const put = await t.inject({ method: 'PUT', url: '/api/tags', headers: bearer(b.key), payload: [{ id: tag.id, name: 'hijacked' }] });
    expect(put.statusCode, put.body).toBe(400);
    const del = await t.inject({ method: 'DELETE', url: '/api/tags', headers: bearer(b.key), payload: [tag.id] });
    expect(del.statusCode, del.body).toBe(400);

    const inA = (await listTags(bearer(a.key))).json<{ id: string; name: string }[]>();
    expect(inA).toEqual([expect.objectContaining({ id: tag.id, name: 'keep-me' })]);
    expect((await listTags(bearer(b.key))).json()).toEqual([]);
  });

  it('the same tag name may exist in two workspaces', async () => {
    const a = await t.workspace();
    const b = await t.workspace();
    await createTag(a.key, 'shared-name');
    await createTag(b.key, 'shared-name');
  });
});

describe('lastUsedAt', () => {
  it('is null for a new key and shows the time of its last request afterwards', async () => {
    const w = await t.workspace();
    const used = await w.newKey();
    const unused = await w.newKey();
    const before = await keysOf(w.id);
    expect(before.find((k) => k.id === used.id)!.lastUsedAt).toBeNull();

    const at = new Date(Math.floor(Date.now() / 1000) * 1000 + 5000);
    try {
      frozen = at;
      expectOk(await listTags(bearer(used.key)));
    } finally {
      frozen = undefined;
    }

    const after = await keysOf(w.id);
    const usedView = after.find((k) => k.id === used.id)!;
    expect(usedView.lastUsedAt).not.toBeNull();
    expect(new Date(usedView.lastUsedAt!).getTime()).toBe(at.getTime());
    expect(after.find((k) => k.id === unused.id)!.lastUsedAt).toBeNull();
  });

  it('moves forward with later use and is not touched by rejected credentials', async () => {
    const w = await t.workspace();
    const k = await w.newKey();
    const first = new Date(Math.floor(Date.now() / 1000) * 1000 + 10_000);
    const second = new Date(first.getTime() + 60_000);
    try {
      frozen = first;
      expectOk(await listTags({ 'x-api-key': k.key }));
      frozen = second;
      expectOk(await listTags(bearer(k.key)));
    } finally {
      frozen = undefined;
    }
    const view = (await keysOf(w.id)).find((x) => x.id === k.id)!;
    expect(new Date(view.lastUsedAt!).getTime()).toBe(second.getTime());

    // A revoked key's failed attempts do not count as use.
    expect((await t.admin('DELETE', `/keys/${k.id}`)).statusCode).toBe(200);
    try {
      frozen = new Date(second.getTime() + 60_000);
      expect401(await listTags(bearer(k.key)), 'credential_revoked');
    } finally {
      frozen = undefined;
    }
    const again = (await keysOf(w.id)).find((x) => x.id === k.id);
    if (again) expect(new Date(again.lastUsedAt!).getTime()).toBe(second.getTime());
  });
});
