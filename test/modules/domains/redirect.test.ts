/**
 * Requests on claimed hosts (operations.md §13), through t.inject with a Host header: an alias
 * answers as its link's short URL does (302, the click stored as the link's, the password gate);
 * `/` and other paths go to rootUrl / notFoundUrl or get the 404 page; a pending or unclaimed
 * host is served exactly as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { clickLinkOf } from '../links/branded.helpers.js';
import { activeHostWithLink, api, expectStatus, freshHost } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const visit = (host: string, url: string, o: { method?: 'GET' | 'HEAD' | 'POST'; headers?: Record<string, string>; payload?: string } = {}) =>
  t.inject({ method: o.method ?? 'GET', url, headers: { host, ...o.headers }, payload: o.payload });
const shortPath = (shortUrl: string) => new URL(shortUrl).pathname;

describe('an alias on an active host', () => {
  it('302 to the destination with a click id, stored as a click of the link; the short URL keeps working', async () => {
    const { host, link } = await activeHostWithLink(t, { link: { utm: { source: 'old' } } });
    const res = await visit(host, '/spring?x=1');
    expectStatus(res, 302);
    const location = res.headers.location as string;
    expect(location).toMatch(/^https:\/\/shop\.example\/sale\?/);
    expect(new URL(location).searchParams.get('utm_source')).toBe('old');
    expect(new URL(location).searchParams.get('x')).toBe('1');
    expect(await clickLinkOf(t, location)).toBe(link.id);
    // One trailing slash is ignored; the host's case and default port too.
    expectStatus(await visit(host.toUpperCase(), '/spring/'), 302);
    expectStatus(await visit(`${host}:443`, '/spring/'), 302);
    // Written as a fully qualified name, with the root's dot (RFC 4343 practice), as §13 stores it without.
    for (const fqdn of [`${host}.`, `${host.toUpperCase()}.`, `${host}.:443`]) {
      const viaDot = await visit(fqdn, '/spring');
      expectStatus(viaDot, 302);
      expect(await clickLinkOf(t, viaDot.headers.location as string)).toBe(link.id);
    }
    // The generated short URL, on the service's own host, is the same link.
    const direct = await visit('lt.test', shortPath(link.shortUrl));
    expectStatus(direct, 302);
    expect(await clickLinkOf(t, direct.headers.location as string)).toBe(link.id);
  });

  it('paths compare exactly: another case is not the alias', async () => {
    const { host } = await activeHostWithLink(t, { paths: ['/Spring'], notFoundUrl: 'https://shop.example/missing' });
    expectStatus(await visit(host, '/Spring'), 302);
    const other = await visit(host, '/spring');
    expectStatus(other, 302);
    expect(other.headers.location).toBe('https://shop.example/missing');
  });

  it('a password-protected link asks for it at the alias, and the form posts back there', async () => {
    const { host } = await activeHostWithLink(t, { paths: ['/secret'], link: { password: 'open sesame' } });
    const form = await visit(host, '/secret');
    expectStatus(form, 401);
    expect(form.body).toContain('action="/secret"');
    const wrong = await visit(host, '/secret', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'password=nope' });
    expectStatus(wrong, 401);
    const right = await visit(host, '/secret', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'password=open%20sesame',
    });
    expectStatus(right, 303);
    expect(right.headers.location).toBe('/secret');
    const cookie = String(right.headers['set-cookie']).split(';')[0]!;
    expect(String(right.headers['set-cookie'])).toContain('Path=/secret');
    const through = await visit(host, '/secret', { headers: { cookie } });
    expectStatus(through, 302);
    expect(through.headers.location).toMatch(/^https:\/\/shop\.example\/sale/);
  });
});

describe('other paths of an active host', () => {
  it('/ goes to rootUrl and unknown paths to notFoundUrl; without them the 404 page; the API is not served there', async () => {
    const withUrls = await activeHostWithLink(t, { rootUrl: 'https://shop.example/', notFoundUrl: 'https://shop.example/404' });
    const root = await visit(withUrls.host, '/');
    expectStatus(root, 302);
    expect(root.headers.location).toBe('https://shop.example/');
    const unknown = await visit(withUrls.host, '/nothing-here?q=1');
    expectStatus(unknown, 302);
    expect(unknown.headers.location).toBe('https://shop.example/404');

    const bare = await activeHostWithLink(t);
    for (const path of ['/', '/nothing', shortPath(bare.link.shortUrl), '/api/links', '/__claimed-host/spring']) {
      const res = await visit(bare.host, path, { headers: bearer(bare.ws.key) });
      expectStatus(res, 404);
      expect(res.headers['content-type']).toMatch(/text\/html/);
    }
  });

  it('a PATCH of rootUrl and the removal of the claim hold at the next request', async () => {
    const { api: a, host, domain, link } = await activeHostWithLink(t);
    expectStatus(await a.send('PATCH', `/api/domains/${domain.id}`, { rootUrl: 'https://shop.example/home' }), 200);
    expect((await visit(host, '/')).headers.location).toBe('https://shop.example/home');
    expectStatus(await a.send('DELETE', `/api/domains/${domain.id}`), 200);
    // Served as before: the alias is no short link, the short id is.
    expectStatus(await visit(host, '/spring'), 404);
    expectStatus(await visit(host, shortPath(link.shortUrl)), 302);
  });
});

describe('hosts that are not active', () => {
  it('a pending host is served exactly as today: short ids resolve, aliases do not', async () => {
    const ws = await t.workspace();
    const a = api(t, ws);
    const host = freshHost();
    await a.claim({ host, rootUrl: 'https://shop.example/' });
    const created = await a.send('POST', '/api/links', [
      { url: 'https://shop.example/sale', collectionId: await a.collection(), aliases: [`https://${host}/spring`] },
    ]);
    expectStatus(created, 201);
    const link = created.json<{ shortUrl: string }[]>()[0]!;
    expectStatus(await visit(host, '/spring'), 404);
    expectStatus(await visit(host, shortPath(link.shortUrl)), 302);
    expect((await visit(host, '/healthz')).json()).toEqual({ status: 'ok' });
  });

  it("the route behind the rewrite answers the 404 page on the service's own host", async () => {
    const res = await visit('lt.test', '/__claimed-host/spring');
    expectStatus(res, 404);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});
