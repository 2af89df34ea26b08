/**
 * The partner program's settings through HTTP (operations.md §18 "Program"): 404 until the first
 * PUT, which makes it with its defaults, its collection and the `default` group; later PUTs keep
 * what they leave out; the slug unique on the server; bad input 400 naming the field; a member's
 * session refused by role (a money route), a key by scope; every change audited.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer, startTestApp, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';
import type { LightMyRequestResponse } from 'fastify';
import { asSession, signedInMember } from '../people/helpers.js';

/** The error's status and code, in English and real Arabic; the body. */
function expectError(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json<{ error: { en: string; ar: string; code: string }; field?: string; missingScopes?: string[] }>();
  expect(body.error.code, res.body).toBe(code);
  expect(body.error.en.length).toBeGreaterThan(10);
  expect(body.error.ar).toMatch(/[\u0600-\u06ff]/);
  return body;
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const slug = () => `p-${randomUUID().slice(0, 8)}`;
const put = (w: WorkspaceFixture, body: unknown, key = w.key) =>
  t.inject({ method: 'PUT', url: '/api/program', headers: bearer(key), payload: body as object });
const get = (w: WorkspaceFixture, key = w.key) => t.inject({ method: 'GET', url: '/api/program', headers: bearer(key) });
const base = () => ({ name: 'Friends of Acme', slug: slug(), landingUrl: 'https://acme.example/pricing?x=1', currency: 'usd' });

describe('the program', () => {
  test('404 until the first PUT; the first makes it with its defaults, a collection named after it and the group default', async () => {
    const w = await t.workspace();
    expectError(await get(w), 404, 'not_found');
    const body = base();
    const res = await put(w, body);
    expect(res.statusCode, res.body).toBe(200);
    const program = res.json();
    expect(program).toMatchObject({
      name: 'Friends of Acme',
      slug: body.slug,
      landingUrl: 'https://acme.example/pricing?x=1',
      currency: 'usd',
      holdingDays: 30,
      minPayout: { usd: 5000 },
      attributionDays: 90,
      linkPrefixes: ['https://acme.example/'],
      maxPartnerLinks: 20,
      linkHost: null,
      applications: { open: false, autoApprove: false },
      embedOrigins: [],
      termsUrl: null,
      fraudRules: { selfReferral: true, sameVisitor: true, disposableEmail: true, burst: true, duplicateCustomer: true },
      trustClientEvents: false,
    });
    expect((await get(w)).json()).toEqual(program);
    const collections = (await t.inject({ method: 'GET', url: '/api/collections', headers: bearer(w.key) })).json<{ id: string; name: string }[]>();
    expect(collections.find((c) => c.id === program.collectionId)?.name).toBe('Friends of Acme');
  });

  test('a later PUT changes what it gives and keeps the rest', async () => {
    const w = await t.workspace();
    const body = { ...base(), holdingDays: 14, minPayout: { usd: 10000, eur: 2000 } };
    expect((await put(w, body)).statusCode).toBe(200);
    const res = await put(w, { ...body, name: 'Acme Partners', holdingDays: undefined, minPayout: undefined, embedOrigins: ['https://App.Example:443'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Acme Partners', holdingDays: 14, minPayout: { usd: 10000, eur: 2000 }, embedOrigins: ['https://app.example'] });
  });

  test('a slug another workspace holds is 409 slug_taken; its own slug is fine again', async () => {
    const [a, b] = [await t.workspace(), await t.workspace()];
    const body = base();
    expect((await put(a, body)).statusCode).toBe(200);
    expectError(await put(b, body), 409, 'slug_taken');
    expect((await put(a, body)).statusCode).toBe(200);
  });

  test.each([
    ['currency', { currency: 'usdx' }],
    ['currency', { currency: 'abc' }],
    ['slug', { slug: 'Not Ok' }],
    ['slug', { slug: 'ab' }],
    ['landingUrl', { landingUrl: 'http://acme.example/' }],
    ['holdingDays', { holdingDays: 91 }],
    ['attributionDays', { attributionDays: 0 }],
    ['minPayout.usd', { minPayout: { usd: -1 } }],
    ['minPayout.xyz', { minPayout: { xyz: 100 } }],
    ['linkHost', { linkHost: 'not-mine.example' }],
    ['embedOrigins[0]', { embedOrigins: ['https://app.example/path'] }],
    // Found by the fuzz: these passed the schema's pattern and were read by the URL parser (500).
    ['landingUrl', { landingUrl: 'https://exa mple.com/' }],
    ['embedOrigins[0]', { embedOrigins: ['https://a b'] }],
    ['linkPrefixes[0]', { linkPrefixes: ['https://%/'] }],
    ['termsUrl', { termsUrl: 'https://%zz/' }],
  ])('bad %s: 400 naming it, in English and Arabic', async (field, change) => {
    const w = await t.workspace();
    const res = await put(w, { ...base(), ...change });
    const error = expectError(res, 400, 'invalid_field');
    expect(error.field).toBe(field);
    expect((await get(w)).statusCode).toBe(404);
  });

  test('a member by session is refused by role (owner_required); a viewer by scope; an owner and a key with programsWrite may', async () => {
    const w = await t.workspace();
    const member = await signedInMember(t, w.id, 'member');
    const viewer = await signedInMember(t, w.id, 'viewer');
    const owner = await signedInMember(t, w.id, 'owner');
    const refused = expectError(await asSession(t, member.cookie, 'PUT', '/api/program', base(), { workspaceId: w.id }), 403, 'owner_required');
    expect(refused.missingScopes).toBeUndefined();
    expectError(await asSession(t, viewer.cookie, 'PUT', '/api/program', base(), { workspaceId: w.id }), 403, 'missing_scopes');
    expect((await asSession(t, owner.cookie, 'PUT', '/api/program', base(), { workspaceId: w.id })).statusCode).toBe(200);
    expect((await asSession(t, member.cookie, 'GET', '/api/program', undefined, { workspaceId: w.id })).statusCode).toBe(200);
    const { key: readOnly } = await w.newKey(['programsRead']);
    expectError(await put(w, base(), readOnly), 403, 'missing_scopes');
    const { key: writer } = await w.newKey(['programsWrite']);
    expect((await put(w, base(), writer)).statusCode).toBe(200);
  });

  test('each PUT is in the audit log with what it changed', async () => {
    const w = await t.workspace();
    const owner = await signedInMember(t, w.id, 'owner');
    const body = base();
    expect((await put(w, body)).statusCode).toBe(200);
    expect((await put(w, { ...body, holdingDays: 7 })).statusCode).toBe(200);
    const log = await asSession(t, owner.cookie, 'GET', '/api/audit-log?action=program.updated', undefined, { workspaceId: w.id });
    expect(log.statusCode, log.body).toBe(200);
    const entries = log.json<{ action: string; changes: Record<string, { before: unknown; after: unknown }> }[]>();
    expect(entries.map((e) => e.action)).toEqual(['program.updated', 'program.updated']);
    expect(entries[0]!.changes).toEqual({ holdingDays: { before: 30, after: 7 } });
    expect(entries[1]!.changes.slug).toEqual({ before: null, after: body.slug });
  });
});
