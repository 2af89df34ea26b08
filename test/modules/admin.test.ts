import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/connect.js';
import { SCOPES } from '../../src/core/scopes.js';
import { ADMIN_TOKEN, bearer, startTestApp, type TestApp } from '../helpers/app.js';

/** operations.md §2: the operator API (workspaces and keys) behind ADMIN_TOKEN. */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

const ARABIC = /[\u0600-\u06FF]/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KEY_FORMAT = /^lt_[A-Za-z0-9_-]{43}$/;

interface Workspace {
  id: string;
  name: string;
  plan: string;
  rateLimitPerMinute: number;
  maxBulkItems: number;
  createdAt: string;
}

interface Key {
  id: string;
  workspaceId: string;
  name: string;
  scopes: string[];
  prefix: string;
  expiresAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  key?: string;
}

const PLAN_LIMITS = {
  free: { rateLimitPerMinute: 60, maxBulkItems: 100 },
  pro: { rateLimitPerMinute: 600, maxBulkItems: 1000 },
  business: { rateLimitPerMinute: 3000, maxBulkItems: 10_000 },
  enterprise: { rateLimitPerMinute: 10_000, maxBulkItems: 10_000 },
} as const;

const uniqueName = (label: string) => `${label}-${randomUUID()}`;

function expectError(res: LightMyRequestResponse, status: number, code?: string): void {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json<{ error: { en: string; ar: string; code: string } }>();
  expect(body.error.en.trim().length).toBeGreaterThan(0);
  expect(body.error.ar).toMatch(ARABIC);
  if (code) expect(body.error.code).toBe(code);
}

async function createWorkspace(body: Record<string, unknown>): Promise<Workspace> {
  const res = await t.admin('POST', '/workspaces', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Workspace>();
}

async function listWorkspaces(): Promise<Workspace[]> {
  const res = await t.admin('GET', '/workspaces');
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Workspace[]>();
}

async function createKey(workspaceId: string, body: Record<string, unknown>): Promise<Key & { key: string }> {
  const res = await t.admin('POST', `/workspaces/${workspaceId}/keys`, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Key & { key: string }>();
}

async function listKeys(workspaceId: string): Promise<Key[]> {
  const res = await t.admin('GET', `/workspaces/${workspaceId}/keys`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Key[]>();
}

const listTags = (key: string) => t.inject({ method: 'GET', url: '/api/tags', headers: bearer(key) });

/** One request to every operator route (valid shapes, so only the guard decides). */
function adminRoutes(): { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: unknown }[] {
  const id = randomUUID();
  return [
    { method: 'POST', url: '/admin/workspaces', payload: { name: uniqueName('guarded') } },
    { method: 'GET', url: '/admin/workspaces' },
    { method: 'PATCH', url: `/admin/workspaces/${id}`, payload: { name: 'x' } },
    { method: 'POST', url: `/admin/workspaces/${id}/keys`, payload: { name: 'k', scopes: ['tagsRead'] } },
    { method: 'GET', url: `/admin/workspaces/${id}/keys` },
    { method: 'DELETE', url: `/admin/keys/${id}` },
  ];
}

describe('the guard', () => {
  it.each([
    ['unset', undefined],
    ['empty', ''],
  ])('answers 404 on every /admin route when ADMIN_TOKEN is %s', async (_label, token) => {
    const off = await startTestApp({ env: { ADMIN_TOKEN: token }, database: t.database });
    try {
      expect(off.runtime.app.hasRoute({ method: 'GET', url: '/admin/workspaces' })).toBe(false);
      for (const r of adminRoutes()) {
        for (const headers of [{}, { authorization: `Bearer ${ADMIN_TOKEN}` }, { authorization: 'Bearer ' }]) {
          const res = await off.inject({ method: r.method, url: r.url, headers, payload: r.payload as object });
          expect(res.statusCode, `${r.method} ${r.url}`).toBe(404);
          expectError(res, 404);
        }
      }
      // The public API still works without the operator API.
      expect((await off.inject({ method: 'GET', url: '/api/openapi.json' })).statusCode).toBe(200);
    } finally {
      await off.close();
    }
  });

  it('answers 401 admin_unauthorized on every /admin route without the right token', async () => {
    const w = await t.workspace();
    const wrongHeaders: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-0123456789' },
      { authorization: `Bearer ${ADMIN_TOKEN}x` },
      { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` },
      { authorization: 'Bearer ' },
      { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` },
      bearer(w.key),
      { 'x-api-key': w.key },
    ];
    for (const r of adminRoutes()) {
      for (const headers of wrongHeaders) {
        const res = await t.inject({ method: r.method, url: r.url, headers, payload: r.payload as object });
        expect(res.statusCode, `${r.method} ${r.url} with ${JSON.stringify(headers)}`).toBe(401);
        expectError(res, 401, 'admin_unauthorized');
      }
    }
  });

  it('does nothing on a 401: a rejected create leaves no workspace behind', async () => {
    const name = uniqueName('rejected');
    const res = await t.inject({ method: 'POST', url: '/admin/workspaces', headers: { authorization: 'Bearer nope-nope-nope-nope' }, payload: { name } });
    expect(res.statusCode).toBe(401);
    expect((await listWorkspaces()).some((w) => w.name === name)).toBe(false);
  });

  it('does not accept the operator token as an API key', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/tags', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.statusCode).toBe(401);
  });

  it('answers 404 to an unknown /admin route with the right token', async () => {
    expectError(await t.admin('GET', '/nothing-here'), 404);
  });
});

describe('workspaces', () => {
  it('creates a workspace on the free plan by default, with the free limits', async () => {
    const name = uniqueName('default-plan');
    const res = await t.admin('POST', '/workspaces', { name });
    expect(res.statusCode, res.body).toBe(201);
    const ws = res.json<Workspace>();
    expect(Object.keys(ws).sort()).toEqual(['createdAt', 'id', 'maxBulkItems', 'name', 'plan', 'rateLimitPerMinute', 'requireMfa']);
    expect(ws).toMatchObject({ name, plan: 'free', rateLimitPerMinute: 60, maxBulkItems: 100, requireMfa: false });
    expect(ws.id).toMatch(UUID);
    expect(Number.isNaN(Date.parse(ws.createdAt))).toBe(false);
  });

  it.each(Object.entries(PLAN_LIMITS))('creates a workspace on the %s plan with its limits', async (plan, limits) => {
    const ws = await createWorkspace({ name: uniqueName(plan), plan });
    expect(ws).toMatchObject({ plan, ...limits });
  });

  it('rejects an invalid create body with 400 and creates nothing', async () => {
    const name = uniqueName('invalid');
    for (const body of [{ name, plan: 'gold' }, { name, plan: 'FREE' }, { name, plan: null }, {}, { name: '' }, { name: 42 }, { plan: 'pro' }]) {
      const res = await t.admin('POST', '/workspaces', body);
      expectError(res, 400);
    }
    expect((await listWorkspaces()).some((w) => w.name === name)).toBe(false);
  });

  it('lists workspaces as they were created', async () => {
    const a = await createWorkspace({ name: uniqueName('list-a'), plan: 'pro' });
    const b = await createWorkspace({ name: uniqueName('list-b') });
    const all = await listWorkspaces();
    expect(all).toContainEqual(a);
    expect(all).toContainEqual(b);
  });

  it('patches the name alone, leaving the rest', async () => {
    const ws = await createWorkspace({ name: uniqueName('before'), plan: 'pro' });
    const name = uniqueName('after');
    const res = await t.admin('PATCH', `/workspaces/${ws.id}`, { name });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<Workspace>()).toEqual({ ...ws, name });
    expect((await listWorkspaces()).find((w) => w.id === ws.id)).toEqual({ ...ws, name });
  });

  it('patches the plan, and the limits in force follow it', async () => {
    const ws = await createWorkspace({ name: uniqueName('plan') });
    for (const plan of ['pro', 'business', 'enterprise', 'free'] as const) {
      const res = await t.admin('PATCH', `/workspaces/${ws.id}`, { plan });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json<Workspace>()).toEqual({ ...ws, plan, ...PLAN_LIMITS[plan] });
    }
  });

  it('overrides rateLimitPerMinute and maxBulkItems, keeps them across a plan change, and null returns to the plan value', async () => {
    const ws = await createWorkspace({ name: uniqueName('override') });
    let res = await t.admin('PATCH', `/workspaces/${ws.id}`, { rateLimitPerMinute: 5, maxBulkItems: 7 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<Workspace>()).toMatchObject({ plan: 'free', rateLimitPerMinute: 5, maxBulkItems: 7 });

    res = await t.admin('PATCH', `/workspaces/${ws.id}`, { plan: 'business' });
    expect(res.json<Workspace>()).toMatchObject({ plan: 'business', rateLimitPerMinute: 5, maxBulkItems: 7 });

    res = await t.admin('PATCH', `/workspaces/${ws.id}`, { rateLimitPerMinute: null });
    expect(res.json<Workspace>()).toMatchObject({ plan: 'business', rateLimitPerMinute: 3000, maxBulkItems: 7 });

    res = await t.admin('PATCH', `/workspaces/${ws.id}`, { maxBulkItems: null });
    expect(res.json<Workspace>()).toMatchObject({ plan: 'business', rateLimitPerMinute: 3000, maxBulkItems: 10_000 });

    expect((await listWorkspaces()).find((w) => w.id === ws.id)).toMatchObject({ plan: 'business', rateLimitPerMinute: 3000, maxBulkItems: 10_000 });
  });

  it('puts the limits in force at once: X-RateLimit-Limit and the bulk maximum follow a PATCH', async () => {
    const ws = await createWorkspace({ name: uniqueName('in-force') });
    const { key } = await createKey(ws.id, { name: 'k', scopes: [...SCOPES] });
    expect((await listTags(key)).headers['x-ratelimit-limit']).toBe('60');

    await t.admin('PATCH', `/workspaces/${ws.id}`, { rateLimitPerMinute: 250, maxBulkItems: 2 });
    expect((await listTags(key)).headers['x-ratelimit-limit']).toBe('250');
    const three = await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(key), payload: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] });
    expectError(three, 400);
    expect((await listTags(key)).json()).toEqual([]);
    const two = await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(key), payload: [{ name: 'a' }, { name: 'b' }] });
    expect(two.statusCode, two.body).toBe(201);

    await t.admin('PATCH', `/workspaces/${ws.id}`, { rateLimitPerMinute: null, plan: 'pro' });
    expect((await listTags(key)).headers['x-ratelimit-limit']).toBe('600');
  });

  it('rejects an invalid PATCH with 400 and changes nothing', async () => {
    const ws = await createWorkspace({ name: uniqueName('bad-patch'), plan: 'pro' });
    const bodies = [
      { plan: 'gold' },
      { plan: null },
      { name: '' },
      { name: null },
      { rateLimitPerMinute: 0 },
      { rateLimitPerMinute: -5 },
      { rateLimitPerMinute: 1.5 },
      { rateLimitPerMinute: '100' },
      { maxBulkItems: 0 },
      { maxBulkItems: 10_001 },
      { maxBulkItems: 'many' },
      { name: 'ok-name', plan: 'gold' },
    ];
    for (const body of bodies) expectError(await t.admin('PATCH', `/workspaces/${ws.id}`, body), 400);
    expect((await listWorkspaces()).find((w) => w.id === ws.id)).toEqual(ws);
  });

  it('answers 404 to a PATCH of an unknown workspace, and 400 to an id that is not a UUID', async () => {
    expectError(await t.admin('PATCH', `/workspaces/${randomUUID()}`, { name: 'ghost' }), 404);
    expectError(await t.admin('PATCH', '/workspaces/not-a-uuid', { name: 'ghost' }), 400);
  });
});

describe('keys', () => {
  it('creates a key shown once: lt_ + 43 characters, its prefix is its start, and it works', async () => {
    const ws = await createWorkspace({ name: uniqueName('keys'), plan: 'enterprise' });
    const res = await t.admin('POST', `/workspaces/${ws.id}/keys`, { name: 'ci key', scopes: ['tagsRead', 'tagsWrite'] });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json<Key & { key: string }>();
    expect(Object.keys(created).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'key', 'lastUsedAt', 'name', 'prefix', 'revokedAt', 'scopes', 'workspaceId']);
    expect(created).toMatchObject({ workspaceId: ws.id, name: 'ci key', expiresAt: null, lastUsedAt: null, revokedAt: null });
    expect([...created.scopes].sort()).toEqual(['tagsRead', 'tagsWrite']);
    expect(created.id).toMatch(UUID);
    expect(created.key).toMatch(KEY_FORMAT);
    expect(created.key.startsWith('lt_')).toBe(true);
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(created.prefix.length).toBeGreaterThan(3);
    expect(created.prefix.length).toBeLessThan(created.key.length / 2);
    expect(Number.isNaN(Date.parse(created.createdAt))).toBe(false);

    expect((await listTags(created.key)).statusCode).toBe(200);
  });

  it('gives every key a different secret', async () => {
    const ws = await createWorkspace({ name: uniqueName('distinct') });
    const keys = await Promise.all([1, 2, 3, 4, 5].map((i) => createKey(ws.id, { name: `k${i}`, scopes: ['tagsRead'] })));
    expect(new Set(keys.map((k) => k.key)).size).toBe(5);
    expect(new Set(keys.map((k) => k.id)).size).toBe(5);
  });

  it('keeps expiresAt as given', async () => {
    const ws = await createWorkspace({ name: uniqueName('expiry') });
    const expiresAt = '2099-03-04T05:06:07.000Z';
    const created = await createKey(ws.id, { name: 'expiring', scopes: ['tagsRead'], expiresAt });
    expect(new Date(created.expiresAt!).toISOString()).toBe(expiresAt);
    const listed = (await listKeys(ws.id)).find((k) => k.id === created.id)!;
    expect(new Date(listed.expiresAt!).toISOString()).toBe(expiresAt);
  });

  it('accepts every one of the sixteen scopes', async () => {
    const ws = await createWorkspace({ name: uniqueName('all-scopes') });
    expect(SCOPES).toHaveLength(16);
    const created = await createKey(ws.id, { name: 'all', scopes: [...SCOPES] });
    expect([...created.scopes].sort()).toEqual([...SCOPES].sort());
  });

  it('grants only the scopes it holds', async () => {
    const ws = await createWorkspace({ name: uniqueName('scoped') });
    const { key } = await createKey(ws.id, { name: 'read', scopes: ['tagsRead'] });
    expect((await listTags(key)).statusCode).toBe(200);
    const write = await t.inject({ method: 'POST', url: '/api/tags', headers: bearer(key), payload: [{ name: 'x' }] });
    expect(write.statusCode).toBe(403);
  });

  it('rejects invalid key bodies with 400 and creates no key', async () => {
    const ws = await createWorkspace({ name: uniqueName('bad-keys') });
    const bodies = [
      { name: 'k', scopes: ['nope'] },
      { name: 'k', scopes: ['tagsRead', 'adminEverything'] },
      { name: 'k', scopes: ['tagsread'] },
      { name: 'k', scopes: [] },
      { name: 'k', scopes: 'tagsRead' },
      { name: 'k' },
      { scopes: ['tagsRead'] },
      { name: '', scopes: ['tagsRead'] },
      { name: 'k', scopes: ['tagsRead'], expiresAt: 'tomorrow' },
      { name: 'k', scopes: ['tagsRead'], expiresAt: 12345 },
    ];
    for (const body of bodies) expectError(await t.admin('POST', `/workspaces/${ws.id}/keys`, body), 400);
    expect(await listKeys(ws.id)).toEqual([]);
  });

  it('answers 404 for keys of an unknown workspace', async () => {
    const ghost = randomUUID();
    expectError(await t.admin('POST', `/workspaces/${ghost}/keys`, { name: 'k', scopes: ['tagsRead'] }), 404);
    expectError(await t.admin('GET', `/workspaces/${ghost}/keys`), 404);
  });

  it('lists the keys of one workspace without their secret', async () => {
    const ws = await createWorkspace({ name: uniqueName('list-keys') });
    const other = await createWorkspace({ name: uniqueName('other') });
    const a = await createKey(ws.id, { name: 'a', scopes: ['tagsRead'] });
    const b = await createKey(ws.id, { name: 'b', scopes: ['partnersRead', 'partnersWrite'] });
    const c = await createKey(other.id, { name: 'c', scopes: ['tagsRead'] });

    const res = await t.admin('GET', `/workspaces/${ws.id}/keys`);
    expect(res.statusCode).toBe(200);
    const listed = res.json<Key[]>();
    expect(listed.map((k) => k.id).sort()).toEqual([a.id, b.id].sort());
    for (const k of listed) {
      expect(Object.keys(k).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'prefix', 'revokedAt', 'scopes', 'workspaceId']);
      const created = k.id === a.id ? a : b;
      const { key: _secret, ...shown } = created;
      expect(k).toEqual(shown);
    }
    for (const secret of [a.key, b.key, c.key]) {
      expect(res.body).not.toContain(secret);
      expect(res.body).not.toContain(secret.slice(3));
    }
  });

  it('revokes a key: 200 deletedIds, it stops at once, a second revoke is 404', async () => {
    const ws = await createWorkspace({ name: uniqueName('revoke') });
    const doomed = await createKey(ws.id, { name: 'doomed', scopes: ['tagsRead'] });
    const kept = await createKey(ws.id, { name: 'kept', scopes: ['tagsRead'] });
    expect((await listTags(doomed.key)).statusCode).toBe(200);

    const res = await t.admin('DELETE', `/keys/${doomed.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ deletedIds: [doomed.id] });

    const after = await listTags(doomed.key);
    expect(after.statusCode).toBe(401);
    expect(after.json<{ error: { code: string } }>().error.code).toBe('credential_revoked');
    expect((await listTags(kept.key)).statusCode).toBe(200);

    expectError(await t.admin('DELETE', `/keys/${doomed.id}`), 404);
    expect((await listTags(doomed.key)).statusCode).toBe(401);
  });

  it('lists a revoked key with its revokedAt, and live keys with revokedAt null', async () => {
    const ws = await createWorkspace({ name: uniqueName('revoked-list') });
    const doomed = await createKey(ws.id, { name: 'doomed', scopes: ['tagsRead'] });
    const kept = await createKey(ws.id, { name: 'kept', scopes: ['tagsRead'] });
    expect(doomed.revokedAt).toBeNull();
    expect((await listKeys(ws.id)).map((k) => k.revokedAt)).toEqual([null, null]);

    const before = Date.now();
    expect((await t.admin('DELETE', `/keys/${doomed.id}`)).statusCode).toBe(200);
    const after = Date.now();

    const listed = await listKeys(ws.id);
    expect(listed.map((k) => k.id)).toEqual([doomed.id, kept.id]);
    const revokedAt = listed[0]!.revokedAt;
    expect(revokedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(new Date(revokedAt!).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(new Date(revokedAt!).getTime()).toBeLessThanOrEqual(after + 1000);
    expect(listed[1]!.revokedAt).toBeNull();

    // A second revoke is a 404 and keeps the first time.
    expectError(await t.admin('DELETE', `/keys/${doomed.id}`), 404);
    expect((await listKeys(ws.id))[0]!.revokedAt).toBe(revokedAt);
  });

  it('describes revokedAt in the OpenAPI Key schema', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/docs/json' })).json<{
      components: { schemas: Record<string, { properties: Record<string, { description?: string }>; required?: string[] }> };
    }>();
    const key = doc.components.schemas.Key!;
    expect(key.properties.revokedAt).toBeDefined();
    expect(key.required).toContain('revokedAt');
    expect(key.properties.revokedAt!.description).toMatch(/revoked/i);
  });

  it('answers 404 to revoking an unknown key and 400 to an id that is not a UUID', async () => {
    expectError(await t.admin('DELETE', `/keys/${randomUUID()}`), 404);
    expectError(await t.admin('DELETE', '/keys/not-a-uuid'), 400);
  });

  it('stores keys only as hashes: the secret appears nowhere in its api_keys row', async () => {
    const ws = await createWorkspace({ name: uniqueName('hashed') });
    const created = await createKey(ws.id, { name: 'hashed', scopes: ['tagsRead'] });
    const secret = created.key.slice('lt_'.length);
    const secretBytes = Buffer.from(secret, 'base64url');

    const found = await rows<Record<string, unknown>>(t.database.db, sql`SELECT * FROM api_keys WHERE id = ${created.id}`);
    expect(found).toHaveLength(1);
    const row = found[0]!;
    expect(Object.keys(row).length).toBeGreaterThan(3);
    for (const [column, value] of Object.entries(row)) {
      if (value === null || value === undefined) continue;
      const forms: string[] = [];
      if (value instanceof Uint8Array) {
        const buf = Buffer.from(value);
        forms.push(buf.toString('utf8'), buf.toString('latin1'), buf.toString('hex'), buf.toString('base64'), buf.toString('base64url'));
        expect(buf.includes(secretBytes), `${column} holds the key's bytes`).toBe(false);
      } else {
        forms.push(typeof value === 'object' ? JSON.stringify(value) : String(value));
      }
      for (const form of forms) {
        expect(form.includes(created.key), `${column} holds the key`).toBe(false);
        expect(form.includes(secret), `${column} holds the key's secret part`).toBe(false);
        expect(form.includes(secret.slice(8, 40)), `${column} holds part of the secret`).toBe(false);
      }
    }

    // The same check in SQL, over the row's whole text form (bytea shows as hex there).
    const matches = await rows<{ n: number | string }>(
      t.database.db,
      sql`SELECT count(*) AS n FROM api_keys k WHERE position(${secret.slice(0, 24)} in k::text) > 0
          OR position(${secretBytes.toString('hex')} in k::text) > 0`,
    );
    expect(Number(matches[0]!.n)).toBe(0);

    // And the key still authenticates: what is stored is enough to recognise it.
    expect((await listTags(created.key)).statusCode).toBe(200);
  });
});
