/**
 * Claimed hosts over HTTP (operations.md §13): claim, verification by a TXT record through a DNS
 * responder this test runs on 127.0.0.1 (DNS_SERVERS), first verified wins, reserved and IP
 * hosts, the owner rule, the operator's routes and the TLS edge's question.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { startTxtServer } from './dns-server.js';
import { api, expectStatus, freshHost, type Claimed } from './helpers.js';

let t: TestApp;
let dns: Awaited<ReturnType<typeof startTxtServer>>;

beforeAll(async () => {
  dns = await startTxtServer();
  t = await startTestApp({ env: { DNS_SERVERS: dns.address, RESERVED_HOSTS: 'reserved.example,Bücher.example' } });
});
afterAll(async () => {
  await t?.close();
  await dns?.close();
});

describe('POST /api/domains', () => {
  it('claims a host pending, with the TXT record to add; the host is stored normalised', async () => {
    const ws = await t.workspace();
    const host = freshHost('Shop');
    const res = await api(t, ws).send('POST', '/api/domains', { host: `${host.toUpperCase()}.:443`, notFoundUrl: 'https://shop.example/404' });
    expectStatus(res, 201);
    const claimed = res.json<Claimed & { notFoundUrl: string; rootUrl: null; workspaceId: string }>();
    expect(claimed).toMatchObject({ host: host.toLowerCase(), status: 'pending', rootUrl: null, notFoundUrl: 'https://shop.example/404', workspaceId: ws.id });
    expect(claimed.verification.txtName).toBe(`_linktrail.${host.toLowerCase()}`);
    expect(claimed.verification.txtValue).toMatch(/^linktrail-verify=[\w-]{32}$/);
    const list = await api(t, ws).send('GET', '/api/domains');
    expect(list.json<Claimed[]>().map((d) => d.id)).toEqual([claimed.id]);
  });

  it.each([
    ['127.0.0.1', 'host_ip_literal'],
    ['[::1]', 'host_ip_literal'],
    ['127.1', 'host_ip_literal'],
    ['localhost', 'host_invalid'],
    ['https://brand.example/x', 'host_invalid'],
    ['bad_label.example', 'host_invalid'],
    ['lt.test', 'host_reserved'], // BASE_URL's host, always reserved
    ['RESERVED.example', 'host_reserved'],
    ['xn--bcher-kva.example', 'host_reserved'], // RESERVED_HOSTS compares in punycode
  ])('%s is refused with 400 %s, in both languages', async (host, code) => {
    const ws = await t.workspace();
    const res = await api(t, ws).send('POST', '/api/domains', { host });
    expectStatus(res, 400);
    const body = res.json<{ error: { code: string; en: string; ar: string }; field: string }>();
    expect(body.error.code).toBe(code);
    expect(body.field).toBe('host');
    expect(body.error.ar).toMatch(/[\u0600-\u06FF]/);
  });

  it('a workspace claims a host once; rootUrl must be https', async () => {
    const ws = await t.workspace();
    const host = freshHost();
    await api(t, ws).claim({ host });
    const again = await api(t, ws).send('POST', '/api/domains', { host });
    expectStatus(again, 400);
    expect(again.json()).toMatchObject({ field: 'host', reason: 'already_claimed' });
    const http = await api(t, ws).send('POST', '/api/domains', { host: freshHost(), rootUrl: 'http://shop.example/' });
    expectStatus(http, 400);
    expect(http.json()).toMatchObject({ field: 'rootUrl', reason: 'https_required' });
  });
});

describe('POST /api/domains/{id}/verify', () => {
  it('missing or wrong TXT: 400 saying what was found, the claim stays pending; the right one makes it active', async () => {
    const ws = await t.workspace();
    const a = api(t, ws);
    const claimed = await a.claim({ host: freshHost() });
    const verify = () => a.send('POST', `/api/domains/${claimed.id}/verify`);

    const missing = await verify();
    expectStatus(missing, 400);
    expect(missing.json<{ error: { code: string; en: string } }>().error).toMatchObject({ code: 'domain_txt_missing' });
    expect(missing.json<{ error: { en: string } }>().error.en).toContain(claimed.verification.txtValue);

    dns.records.set(claimed.verification.txtName, ['v=spf1 -all', 'linktrail-verify=not-this-one']);
    const wrong = await verify();
    expectStatus(wrong, 400);
    expect(wrong.json<{ error: { code: string; en: string } }>().error.code).toBe('domain_txt_mismatch');
    expect(wrong.json<{ error: { en: string } }>().error.en).toContain('linktrail-verify=not-this-one');
    expect((await a.send('GET', `/api/domains/${claimed.id}`)).json()).toMatchObject({ status: 'pending', verifiedAt: null });

    dns.records.set(claimed.verification.txtName, ['v=spf1 -all', claimed.verification.txtValue]);
    const ok = await verify();
    expectStatus(ok, 200);
    expect(ok.json()).toMatchObject({ id: claimed.id, status: 'active' });
    expect(ok.json<{ verifiedAt: string }>().verifiedAt).toMatch(/^\d{4}-/);
  });

  it('pending claims of one host coexist; the first verified wins, the other gets host_taken (claim and verify)', async () => {
    const host = freshHost();
    const [w1, w2, w3] = [await t.workspace(), await t.workspace(), await t.workspace()];
    const c1 = await api(t, w1).claim({ host });
    const c2 = await api(t, w2).claim({ host });
    dns.records.set(c1.verification.txtName, [c1.verification.txtValue, c2.verification.txtValue]);
    expectStatus(await api(t, w2).send('POST', `/api/domains/${c2.id}/verify`), 200);
    const lost = await api(t, w1).send('POST', `/api/domains/${c1.id}/verify`);
    expectStatus(lost, 400);
    expect(lost.json<{ error: { code: string } }>().error.code).toBe('host_taken');
    const late = await api(t, w3).send('POST', '/api/domains', { host });
    expectStatus(late, 400);
    expect(late.json<{ error: { code: string } }>().error.code).toBe('host_taken');
    // The holder gives it up: the host is free again.
    expectStatus(await api(t, w2).send('DELETE', `/api/domains/${c2.id}`), 200);
    expectStatus(await api(t, w1).send('POST', `/api/domains/${c1.id}/verify`), 200);
  });
});

describe('PATCH and DELETE /api/domains/{id}', () => {
  it('changes rootUrl and notFoundUrl (null clears); deletes; another workspace sees none of it', async () => {
    const ws = await t.workspace();
    const other = await t.workspace();
    const claimed = await api(t, ws).claim({ host: freshHost(), rootUrl: 'https://shop.example/' });
    const patched = await api(t, ws).send('PATCH', `/api/domains/${claimed.id}`, { rootUrl: null, notFoundUrl: 'https://shop.example/missing' });
    expectStatus(patched, 200);
    expect(patched.json()).toMatchObject({ rootUrl: null, notFoundUrl: 'https://shop.example/missing' });
    expectStatus(await api(t, ws).send('PATCH', `/api/domains/${claimed.id}`, {}), 400);
    expectStatus(await api(t, other).send('GET', `/api/domains/${claimed.id}`), 404);
    expectStatus(await api(t, other).send('DELETE', `/api/domains/${claimed.id}`), 404);
    expect((await api(t, other).send('GET', '/api/domains')).json()).toEqual([]);
    const deleted = await api(t, ws).send('DELETE', `/api/domains/${claimed.id}`);
    expect(deleted.json()).toEqual({ deletedIds: [claimed.id] });
    expectStatus(await api(t, ws).send('GET', `/api/domains/${claimed.id}`), 404);
  });
});

describe('who may call', () => {
  it('keys act by scope: linksRead reads, linksWrite changes; without them 403 with missingScopes', async () => {
    const ws = await t.workspace();
    const reader = await ws.newKey(['linksRead']);
    const writer = await ws.newKey(['linksWrite']);
    const none = await ws.newKey(['tagsRead']);
    expectStatus(await t.inject({ method: 'GET', url: '/api/domains', headers: bearer(reader.key) }), 200);
    const denied = await t.inject({ method: 'POST', url: '/api/domains', headers: bearer(reader.key), payload: { host: freshHost() } });
    expectStatus(denied, 403);
    expect(denied.json()).toMatchObject({ missingScopes: ['linksWrite'] });
    expectStatus(await t.inject({ method: 'POST', url: '/api/domains', headers: bearer(writer.key), payload: { host: freshHost() } }), 201);
    expectStatus(await t.inject({ method: 'GET', url: '/api/domains', headers: bearer(none.key) }), 403);
    expectStatus(await t.inject({ method: 'GET', url: '/api/domains' }), 401);
  });
});

describe('operator routes', () => {
  it('lists every claim, verifies without DNS (host_taken while held), removes any claim', async () => {
    const host = freshHost();
    const [w1, w2] = [await t.workspace(), await t.workspace()];
    const c1 = await api(t, w1).claim({ host });
    const c2 = await api(t, w2).claim({ host });
    const all = await t.admin('GET', '/domains?take=5000');
    expectStatus(all, 200);
    expect(
      all
        .json<Claimed[]>()
        .filter((d) => d.host === host)
        .map((d) => d.id)
        .sort(),
    ).toEqual([c1.id, c2.id].sort());
    expect((await t.admin('POST', `/domains/${c1.id}/verify`)).json()).toMatchObject({ status: 'active' });
    const taken = await t.admin('POST', `/domains/${c2.id}/verify`);
    expectStatus(taken, 400);
    expect(taken.json<{ error: { code: string } }>().error.code).toBe('host_taken');
    expect((await t.admin('DELETE', `/domains/${c1.id}`)).json()).toEqual({ deletedIds: [c1.id] });
    expectStatus(await t.admin('POST', `/domains/${c2.id}/verify`), 200);
    expectStatus(await t.inject({ method: 'GET', url: '/admin/domains' }), 401);
    expectStatus(await t.inject({ method: 'GET', url: '/admin/domains', headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } }), 401);
  });
});

describe('GET /internal/domains/allowed', () => {
  it('200 for an active host (any case), 404 for a pending, unknown or malformed one', async () => {
    const ws = await t.workspace();
    const host = freshHost();
    const claimed = await api(t, ws).claim({ host });
    const ask = (domain: string) => t.inject({ method: 'GET', url: `/internal/domains/allowed?domain=${encodeURIComponent(domain)}` });
    expectStatus(await ask(host), 404);
    expectStatus(await t.admin('POST', `/domains/${claimed.id}/verify`), 200);
    expectStatus(await ask(host), 200);
    expectStatus(await ask(host.toUpperCase()), 200);
    expectStatus(await ask(freshHost()), 404);
    expectStatus(await ask('not a host'), 404);
    expectStatus(await t.inject({ method: 'GET', url: '/internal/domains/allowed' }), 400);
  });
});
