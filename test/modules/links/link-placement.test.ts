/**
 * Where a link can go, asked before writing it: GET /api/links/domains (the hosts of the link
 * form's Domain select) and GET /api/links/key-availability (its Short path check as one types),
 * which answers what POST or PUT /api/links would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { expectStatus, freshHost } from '../domains/helpers.js';
import { branded, expectError, freshKey, SHORT_HOST, type LinkOut } from './branded.helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

interface Verdict {
  domain: string | null;
  key: string;
  available: boolean;
  reason: string | null;
}

async function check(b: Awaited<ReturnType<typeof branded>>, query: Record<string, string>): Promise<Verdict> {
  const res = await b.api.send('GET', `/api/links/key-availability?${new URLSearchParams(query)}`);
  expectStatus(res, 200);
  return res.json<Verdict>();
}

describe('GET /api/links/domains', () => {
  it('the short-link host alone, then with the active claimed hosts (not pending ones); the default first', async () => {
    const b = await branded(t);
    expect((await b.api.send('GET', '/api/links/domains')).json()).toEqual([
      { domain: SHORT_HOST, default: true, claimed: false, prefix: `https://${SHORT_HOST}/` },
    ]);

    const active = await branded(t, { activeHost: true });
    const pending = freshHost('pending');
    expectStatus(await active.api.send('POST', '/api/domains', { host: pending }), 201);
    expect((await active.api.send('GET', '/api/links/domains')).json()).toEqual([
      { domain: SHORT_HOST, default: true, claimed: false, prefix: `https://${SHORT_HOST}/` },
      { domain: active.host, default: false, claimed: true, prefix: `https://${active.host}/` },
    ]);
    expectStatus(await active.api.send('PATCH', `/api/domains/${active.domainId}`, { default: true }), 200);
    expect((await active.api.send('GET', '/api/links/domains')).json()).toEqual([
      { domain: active.host, default: true, claimed: true, prefix: `https://${active.host}/` },
      { domain: SHORT_HOST, default: false, claimed: false, prefix: `https://${SHORT_HOST}/` },
    ]);
  });

  it('needs linksRead only (a member reads it; the claims list is the owners’)', async () => {
    const b = await branded(t, { activeHost: true });
    const { key: readOnly } = await b.ws.newKey(['linksRead']);
    const res = await t.inject({ method: 'GET', url: '/api/links/domains', headers: bearer(readOnly) });
    expectStatus(res, 200);
    expect(res.json<{ domain: string }[]>().map((d) => d.domain)).toEqual([SHORT_HOST, b.host]);
    const { key: none } = await b.ws.newKey(['tagsRead']);
    expectStatus(await t.inject({ method: 'GET', url: '/api/links/domains', headers: bearer(none) }), 403);
  });
});

describe('GET /api/links/key-availability', () => {
  it('answers what POST /api/links then does: free, taken, reserved, invalid, a host not active', async () => {
    const b = await branded(t, { activeHost: true });
    const key = freshKey('spring');
    expect(await check(b, { key })).toEqual({ domain: null, key, available: true, reason: null });
    await b.create({ key });
    expect(await check(b, { key })).toEqual({ domain: null, key, available: false, reason: 'key_taken' });
    expectError(await b.post([{ key }]), 'key_taken', '[0].key');
    // The same key is free on the claimed host: one namespace per host.
    expect(await check(b, { key, domain: b.host })).toMatchObject({ domain: b.host, available: true });

    expect(await check(b, { key: 'Docs/intro' })).toMatchObject({ available: false, reason: 'key_reserved' });
    expectError(await b.post([{ key: 'Docs/intro' }]), 'key_reserved', '[0].key');
    expect(await check(b, { key: 'Docs/intro', domain: b.host })).toMatchObject({ available: true });

    for (const bad of ['/lead', 'a//b', 'a/../b', 'sp ace', 'x'.repeat(191)]) {
      expect(await check(b, { key: bad }), bad).toMatchObject({ available: false, reason: 'key_invalid' });
    }
    const stranger = freshHost('stranger');
    expect(await check(b, { key: 'spring', domain: stranger })).toMatchObject({ available: false, reason: 'domain_not_active' });
    expectError(await b.post([{ key: 'spring', domain: stranger }]), 'domain_not_active', '[0].domain');
  });

  it('a key another workspace holds is taken here too; a short id is taken; a key given up stays taken', async () => {
    const mine = await branded(t);
    const theirs = await branded(t);
    const key = freshKey('shared');
    const held = await theirs.create({ key });
    expect(await check(mine, { key })).toMatchObject({ available: false, reason: 'key_taken' });
    expect(await check(mine, { key: held.shortId })).toMatchObject({ available: false, reason: 'key_taken' });
    expectStatus(await theirs.put([{ id: held.id, key: null }]), 200);
    expect(await check(mine, { key })).toMatchObject({ available: false, reason: 'key_taken' });
  });

  it('with linkId, the link’s own key is free to it (an edit that keeps it) and taken for others; an unknown link is 404', async () => {
    const b = await branded(t);
    const key = freshKey('own');
    const link: LinkOut = await b.create({ key });
    expect(await check(b, { key, linkId: link.id })).toMatchObject({ available: true });
    const other = await b.create({});
    expect(await check(b, { key, linkId: other.id })).toMatchObject({ available: false, reason: 'key_taken' });
    const res = await b.api.send('GET', `/api/links/key-availability?key=x&linkId=${crypto.randomUUID()}`);
    expectStatus(res, 404);
    const foreign = await (await branded(t)).create({});
    expectStatus(await b.api.send('GET', `/api/links/key-availability?key=x&linkId=${foreign.id}`), 404);
  });

  it('a missing key or a malformed linkId is a 400 naming the query field', async () => {
    const b = await branded(t);
    for (const [query, field] of [
      ['', 'key'],
      ['key=a&linkId=nope', 'linkId'],
    ] as const) {
      const res = await b.api.send('GET', `/api/links/key-availability?${query}`);
      expectStatus(res, 400);
      expect(res.json<{ field: string }>().field).toBe(field);
    }
  });
});
