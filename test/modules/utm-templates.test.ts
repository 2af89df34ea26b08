/**
 * UTM templates (operations.md §14, daily use) through HTTP: create, list by name, change,
 * delete; names unique per workspace ignoring case (409); bad input 400 in English and Arabic
 * with a code and the field; read with linksRead, write with linksWrite; the workspace cap; and
 * one workspace never sees or touches another's.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer, startTestApp, type TestApp, type WorkspaceFixture } from '../helpers/app.js';

const ARABIC = /[\u0600-\u06FF]/;
let t: TestApp;
let w: WorkspaceFixture;
beforeAll(async () => {
  t = await startTestApp();
  w = await t.workspace({ rateLimitPerMinute: 1_000_000 });
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const send = (method: Method, url: string, body?: unknown, key = w.key) =>
  body === undefined
    ? t.inject({ method, url, headers: bearer(key) })
    : t.inject({ method, url, headers: { ...bearer(key), 'content-type': 'application/json' }, payload: JSON.stringify(body) });

function expectError(res: Awaited<ReturnType<TestApp['inject']>>, status: number, code: string, field?: string) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(body.error.code).toBe(code);
  expect(body.error.en.length).toBeGreaterThan(10);
  expect(body.error.ar).toMatch(ARABIC);
  if (field) expect(body.field).toBe(field);
  return body;
}

async function create(name: string, utm: Record<string, string> = { source: 'news', medium: 'email' }, key = w.key) {
  const res = await send('POST', '/api/utm-templates', { name, utm }, key);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; name: string; utm: Record<string, string>; createdAt: string; updatedAt: string }>();
}

describe('UTM templates', () => {
  test('create (values trimmed, empty ones dropped), list by name ignoring case, change, delete', async () => {
    const made = await create('  Newsletter ', { source: ' newsletter ', medium: 'email', campaign: '', referral: 'friend' });
    expect(made).toMatchObject({ name: 'Newsletter', utm: { source: 'newsletter', medium: 'email', referral: 'friend' } });
    expect(made.utm).not.toHaveProperty('campaign');
    const other = await create('ads', { source: 'google', medium: 'cpc' });

    const list = await send('GET', '/api/utm-templates');
    expect(list.statusCode).toBe(200);
    expect(list.json().map((x: { name: string }) => x.name)).toEqual(['ads', 'Newsletter']);

    const renamed = await send('PATCH', `/api/utm-templates/${made.id}`, { name: 'Weekly newsletter' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ id: made.id, name: 'Weekly newsletter', utm: made.utm });
    const revalued = await send('PATCH', `/api/utm-templates/${made.id}`, { utm: { source: 'weekly', campaign: 'spring' } });
    expect(revalued.json()).toMatchObject({ name: 'Weekly newsletter', utm: { source: 'weekly', campaign: 'spring' } });
    expect(revalued.json().utm).not.toHaveProperty('medium');

    const gone = await send('DELETE', `/api/utm-templates/${other.id}`);
    expect(gone.statusCode, gone.body).toBe(200);
    expect(gone.json()).toEqual({ deletedIds: [other.id] });
    expectError(await send('DELETE', `/api/utm-templates/${other.id}`), 404, 'not_found');
    expectError(await send('PATCH', `/api/utm-templates/${other.id}`, { name: 'x' }), 404, 'not_found');
    expect((await send('GET', '/api/utm-templates')).json().map((x: { id: string }) => x.id)).toEqual([made.id]);
    await send('DELETE', `/api/utm-templates/${made.id}`);
  });

  test('a name taken in the workspace, ignoring case, is a 409 naming the field; on rename too', async () => {
    const first = await create('Spring sale');
    const second = await create('Autumn');
    expectError(await send('POST', '/api/utm-templates', { name: 'SPRING SALE', utm: { source: 'x' } }), 409, 'utm_template_name_taken', 'name');
    expectError(await send('PATCH', `/api/utm-templates/${second.id}`, { name: ' spring sale' }), 409, 'utm_template_name_taken', 'name');
    // Its own name (another case) is no conflict.
    expect((await send('PATCH', `/api/utm-templates/${first.id}`, { name: 'SPRING SALE' })).statusCode).toBe(200);
    await send('DELETE', `/api/utm-templates/${first.id}`);
    await send('DELETE', `/api/utm-templates/${second.id}`);
  });

  test('bad input is a 400 in English and Arabic with a code and the field', async () => {
    const post = (body: unknown) => send('POST', '/api/utm-templates', body);
    expectError(await post({ utm: { source: 'x' } }), 400, 'invalid_field', 'name');
    expectError(await post({ name: '', utm: { source: 'x' } }), 400, 'invalid_field', 'name');
    expectError(await post({ name: '   ', utm: { source: 'x' } }), 400, 'invalid_field', 'name');
    expectError(await post({ name: 'n'.repeat(51), utm: { source: 'x' } }), 400, 'invalid_field', 'name');
    expectError(await post({ name: 'a' }), 400, 'invalid_field', 'utm');
    const empty = expectError(await post({ name: 'a', utm: { source: ' ', medium: '' } }), 400, 'invalid_field', 'utm');
    expect(empty.reason).toBe('utm_empty');
    expectError(await post({ name: 'a', utm: { source: 'v'.repeat(501) } }), 400, 'invalid_field', 'utm.source');
    expectError(await post({ name: 'a', utm: { source: 42 } }), 400, 'invalid_field', 'utm.source');
    expectError(await post({ name: 'a', utm: { gclid: 'x' } }), 400, 'invalid_field');
    expectError(await post([{ name: 'a', utm: { source: 'x' } }]), 400, 'invalid_field');
    const made = await create('Valid');
    expectError(await send('PATCH', `/api/utm-templates/${made.id}`, {}), 400, 'invalid_field', 'body');
    expectError(await send('PATCH', '/api/utm-templates/not-a-uuid', { name: 'b' }), 400, 'invalid_path');
    expect((await send('GET', '/api/utm-templates')).json().map((x: { name: string }) => x.name)).toEqual(['Valid']);
    await send('DELETE', `/api/utm-templates/${made.id}`);
  });

  test('read with linksRead, write with linksWrite; others get a 403 naming the scope', async () => {
    const reader = (await w.newKey(['linksRead'])).key;
    const writer = (await w.newKey(['linksWrite'])).key;
    const tagsOnly = (await w.newKey(['tagsRead', 'tagsWrite'])).key;
    expect((await send('GET', '/api/utm-templates', undefined, reader)).statusCode).toBe(200);
    const denied = expectError(await send('POST', '/api/utm-templates', { name: 'r', utm: { source: 'x' } }, reader), 403, 'missing_scopes');
    expect(denied.missingScopes).toEqual(['linksWrite']);
    const made = await create('By writer', { source: 'x' }, writer);
    expect(expectError(await send('GET', '/api/utm-templates', undefined, writer), 403, 'missing_scopes').missingScopes).toEqual(['linksRead']);
    expectError(await send('PATCH', `/api/utm-templates/${made.id}`, { name: 'y' }, tagsOnly), 403, 'missing_scopes');
    expectError(await send('DELETE', `/api/utm-templates/${made.id}`, undefined, reader), 403, 'missing_scopes');
    expect((await send('DELETE', `/api/utm-templates/${made.id}`, undefined, writer)).statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/utm-templates' })).statusCode).toBe(401);
  });

  test('workspaces are apart: another workspace neither lists, changes nor deletes a template, and may use the same name', async () => {
    const mine = await create('Shared name');
    const other = await t.workspace({ rateLimitPerMinute: 1_000_000 });
    expect((await send('GET', '/api/utm-templates', undefined, other.key)).json()).toEqual([]);
    expectError(await send('PATCH', `/api/utm-templates/${mine.id}`, { name: 'stolen' }, other.key), 404, 'not_found');
    expectError(await send('DELETE', `/api/utm-templates/${mine.id}`, undefined, other.key), 404, 'not_found');
    const theirs = await create('Shared name', { source: 'theirs' }, other.key);
    expect(theirs.id).not.toBe(mine.id);
    const still = (await send('GET', '/api/utm-templates')).json();
    expect(still).toEqual([expect.objectContaining({ id: mine.id, name: 'Shared name', utm: mine.utm })]);
    await send('DELETE', `/api/utm-templates/${mine.id}`);
  });

  test('at most 100 templates per workspace (400 utm_template_limit); deleting one makes room', async () => {
    const full = await t.workspace({ rateLimitPerMinute: 1_000_000 });
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push((await create(`t${i}`, { source: 's' }, full.key)).id);
    expectError(await send('POST', '/api/utm-templates', { name: 'one more', utm: { source: 's' } }, full.key), 400, 'utm_template_limit');
    await send('DELETE', `/api/utm-templates/${ids[0]}`, undefined, full.key);
    await create('one more', { source: 's' }, full.key);
  });
});
