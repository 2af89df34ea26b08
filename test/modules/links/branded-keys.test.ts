/**
 * Branded short links (operations.md §21): a chosen key on the short-link host or on a claimed
 * active host; shortUrl and qrCode follow it; the short id keeps redirecting; keys are unique per
 * host with aliases and short ids, never a served path, and held 30 days once given up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { expectStatus } from '../domains/helpers.js';
import { ageFreedKey, branded, clickLinkOf, expectError, freshKey, SHORT_HOST, visit, type LinkOut } from './branded.helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('a key on the short-link host', () => {
  it('POST with a key: shortUrl and qrCode on the key, domain the short host, shortId the generated id; without: key null', async () => {
    const b = await branded(t);
    const key = `${freshKey('Spring')}/Sale_2.0`;
    const [keyed, plain] = await (async () => {
      const res = await b.post([{ key }, {}]);
      expectStatus(res, 201);
      return res.json<LinkOut[]>();
    })();
    expect(keyed).toMatchObject({ domain: SHORT_HOST, key, shortUrl: `https://${SHORT_HOST}/${key}` });
    expect(keyed!.shortId).toMatch(/^[0-9A-Za-z]{8}$/);
    expect(new URL(keyed!.qrCode).searchParams.get('text')).toBe(`https://${SHORT_HOST}/${key}?ltqr=1`);
    expect(plain).toMatchObject({ domain: SHORT_HOST, key: null, shortUrl: `https://${SHORT_HOST}/${plain!.shortId}` });
    const listed = await b.api.send('GET', `/api/links?id=${keyed!.id}`);
    expect(listed.json<LinkOut[]>()[0]).toMatchObject({ domain: SHORT_HOST, key, shortId: keyed!.shortId });
  });

  it('the key and the short id both redirect (302, click id, a click of the link); one trailing slash matches; case matters', async () => {
    const b = await branded(t);
    const key = `${freshKey('Promo')}/x`;
    const link = await b.create({ key, utm: { source: 'print' } });
    const byKey = await visit(t, SHORT_HOST, `/${key}?a=1`);
    expectStatus(byKey, 302);
    const location = byKey.headers.location as string;
    expect(location).toMatch(/^https:\/\/shop\.example\/sale\?/);
    expect(new URL(location).searchParams.get('utm_source')).toBe('print');
    expect(new URL(location).searchParams.get('a')).toBe('1');
    expect(await clickLinkOf(t, location)).toBe(link.id);
    expectStatus(await visit(t, SHORT_HOST, `/${key}/`), 302);
    expectStatus(await visit(t, SHORT_HOST, `/${key}`, 'HEAD'), 302);
    const byId = await visit(t, SHORT_HOST, `/${link.shortId}`);
    expectStatus(byId, 302);
    expect(await clickLinkOf(t, byId.headers.location as string)).toBe(link.id);
    for (const other of [`/${key.toUpperCase()}`, `/${key}//`, `/${key}/more`]) {
      const res = await visit(t, SHORT_HOST, other);
      expectStatus(res, 404);
      expect(res.headers['content-type']).toMatch(/text\/html/);
    }
  });

  it('a key of 8 base62 characters (the shape of a short id) redirects too', async () => {
    const b = await branded(t);
    const key = `K${freshKey('').replace(/-/g, '').slice(0, 7)}`;
    expect(key).toMatch(/^[0-9A-Za-z]{8}$/);
    const link = await b.create({ key });
    const res = await visit(t, SHORT_HOST, `/${key}`);
    expectStatus(res, 302);
    expect(await clickLinkOf(t, res.headers.location as string)).toBe(link.id);
  });

  it('a served path, or one under it, is 400 key_reserved (ignoring case); a key that only starts like one is fine', async () => {
    const b = await branded(t);
    for (const key of ['api', 'api/links', 'Admin', 'healthz', 'favicon.ico', '.well-known/x', 'attribution.js', 'links', 'docs/a', 'oauth']) {
      expectError(await b.post([{ key }]), 'key_reserved', '[0].key');
    }
    const fine = await b.create({ key: `apiary-${freshKey()}` });
    expect(fine.key).toMatch(/^apiary-/);
  });

  it('a malformed key is 400 invalid_field, reason key_invalid', async () => {
    const b = await branded(t);
    for (const key of ['/a', 'a/', 'a//b', 'a/./b', '..', 'a/../b', '.', 'a b', 'a?b', 'é', 'x'.repeat(191), '']) {
      const res = await b.post([{ key }]);
      expectStatus(res, 400);
      expect(res.json<{ field: string }>().field).toBe('[0].key');
    }
    const body = expectError(await b.post([{ key: 'a//b' }]), 'invalid_field', '[0].key');
    expect(body.reason).toBe('key_invalid');
    // 190 characters are enough.
    const prefix = `${freshKey()}-`;
    expect((await b.create({ key: prefix + 'x'.repeat(190 - prefix.length) })).key).toHaveLength(190);
  });

  it('a key another link holds (any workspace), or an existing short id, is 400 key_taken naming the item; the bulk writes nothing', async () => {
    const first = await branded(t);
    const key = freshKey();
    const holder = await first.create({ key });
    const other = await branded(t);
    const free = freshKey();
    const body = expectError(await other.post([{ key: free }, { key }]), 'key_taken', '[1].key');
    expect(body.error.en).toContain(key);
    expect(body.error.ar).toContain(key);
    // Nothing was written: the first item's key is still free.
    expect((await other.create({ key: free })).key).toBe(free);
    expectError(await other.post([{ key: holder.shortId }]), 'key_taken', '[0].key');
    // Twice in one request.
    const twice = freshKey();
    expectStatus(await other.post([{ key: twice }, { key: twice }]), 400);
  });

  it('a key given up by a deleted link stays taken 30 days (database clock), then is free; the deleted key no longer redirects', async () => {
    const b = await branded(t);
    const key = freshKey();
    const link = await b.create({ key });
    expectStatus(await visit(t, SHORT_HOST, `/${key}`), 302);
    expectStatus(await b.api.send('DELETE', '/api/links', [link.id]), 200);
    await expect.poll(async () => (await visit(t, SHORT_HOST, `/${key}`)).statusCode).toBe(404);
    expectError(await b.post([{ key }]), 'key_taken', '[0].key');
    await ageFreedKey(t, '', key, 29);
    expectError(await b.post([{ key }]), 'key_taken', '[0].key');
    await ageFreedKey(t, '', key, 2);
    const next = await b.create({ key, url: 'https://shop.example/next' });
    expect(next.key).toBe(key);
    await expect.poll(async () => (await visit(t, SHORT_HOST, `/${key}`)).headers.location ?? '').toMatch(/^https:\/\/shop\.example\/next\?/);
  });

  it('a key given up by a change of key stays taken 30 days for other links; the same link may take it back', async () => {
    const b = await branded(t);
    const [oldKey, newKey] = [freshKey(), freshKey()];
    const link = await b.create({ key: oldKey });
    expectStatus(await visit(t, SHORT_HOST, `/${oldKey}`), 302); // cached now
    const changed = await b.put([{ id: link.id, key: newKey }]);
    expectStatus(changed, 200);
    expect(changed.json<LinkOut[]>()[0]).toMatchObject({ key: newKey, shortUrl: `https://${SHORT_HOST}/${newKey}` });
    // Every instance's cache drops the old key; the new one is found.
    expectStatus(await visit(t, SHORT_HOST, `/${oldKey}`), 404);
    await expect.poll(async () => (await visit(t, SHORT_HOST, `/${newKey}`)).statusCode).toBe(302);
    expectError(await b.post([{ key: oldKey }]), 'key_taken', '[0].key');
    expectError(await b.put([{ url: 'https://shop.example/x', collectionId: b.collectionId, key: oldKey }]), 'key_taken', '[0].key');
    const back = await b.put([{ id: link.id, key: oldKey }]);
    expectStatus(back, 200);
    expect(back.json<LinkOut[]>()[0]!.key).toBe(oldKey);
    // key null gives the chosen key up: back to the short id.
    const cleared = await b.put([{ id: link.id, key: null }]);
    expect(cleared.json<LinkOut[]>()[0]).toMatchObject({ key: null, shortUrl: `https://${SHORT_HOST}/${link.shortId}` });
    expectError(await b.post([{ key: oldKey }]), 'key_taken', '[0].key');
  });

  it('GET ?key= names the link (exactly); ?domain= filters by host', async () => {
    const b = await branded(t);
    const key = freshKey('Find');
    const link = await b.create({ key });
    const plain = await b.create();
    const byKey = await b.api.send('GET', `/api/links?key=${encodeURIComponent(key)}`);
    expectStatus(byKey, 200);
    expect(byKey.json<LinkOut[]>().map((l) => l.id)).toEqual([link.id]);
    expect((await b.api.send('GET', `/api/links?key=${key.toLowerCase()}`)).json<LinkOut[]>()).toEqual([]);
    expect((await b.api.send('GET', `/api/links?key=${key}&domain=${SHORT_HOST}`)).json<LinkOut[]>().map((l) => l.id)).toEqual([link.id]);
    expect((await b.api.send('GET', `/api/links?key=${key}&domain=elsewhere.example`)).json<LinkOut[]>()).toEqual([]);
    const onShort = await b.api.send('GET', `/api/links?domain=${SHORT_HOST.toUpperCase()}&sort=asc`);
    expect(onShort.json<LinkOut[]>().map((l) => l.id)).toEqual([link.id, plain.id]);
    // Scoped by workspace: another workspace does not see it.
    const other = await branded(t);
    expect((await other.api.send('GET', `/api/links?key=${key}`)).json<LinkOut[]>()).toEqual([]);
  });
});

describe('a key on a claimed active host', () => {
  it('POST with domain and key: https://host/key redirects there; the short id keeps redirecting; without a key the key is the short id', async () => {
    const b = await branded(t, { activeHost: true });
    const key = freshKey('Summer');
    const link = await b.create({ domain: b.host.toUpperCase(), key });
    expect(link).toMatchObject({ domain: b.host, key, shortUrl: `https://${b.host}/${key}` });
    expect(new URL(link.qrCode).searchParams.get('text')).toBe(`https://${b.host}/${key}?ltqr=1`);
    const res = await visit(t, b.host, `/${key}/`);
    expectStatus(res, 302);
    expect(await clickLinkOf(t, res.headers.location as string)).toBe(link.id);
    expectStatus(await visit(t, b.host, `/${key.toUpperCase()}`), 404);
    expectStatus(await visit(t, SHORT_HOST, `/${link.shortId}`), 302);
    // Not on the short-link host: keys are per host.
    expectStatus(await visit(t, SHORT_HOST, `/${key}`), 404);
    const byId = await b.create({ domain: b.host });
    expect(byId).toMatchObject({ domain: b.host, key: byId.shortId, shortUrl: `https://${b.host}/${byId.shortId}` });
    expectStatus(await visit(t, b.host, `/${byId.shortId}`), 302);
    // On a claimed host nothing is reserved.
    expect((await b.create({ domain: b.host, key: 'api/x' })).shortUrl).toBe(`https://${b.host}/api/x`);
  });

  it('keys and aliases share one namespace per host: each refuses the other', async () => {
    const b = await branded(t, { activeHost: true });
    const [aliasPath, key] = [freshKey('old'), freshKey('new')];
    await b.create({ aliases: [`https://${b.host}/${aliasPath}`] });
    expectError(await b.post([{ domain: b.host, key: aliasPath }]), 'key_taken', '[0].key');
    await b.create({ domain: b.host, key });
    const alias = await b.post([{ aliases: [`https://${b.host}/${key}`] }]);
    expectStatus(alias, 400);
    expect(alias.json()).toMatchObject({ field: '[0].aliases[0]', reason: 'alias_taken' });
    // In one request too.
    const both = freshKey();
    expectError(await b.post([{ aliases: [`https://${b.host}/${both}`] }, { domain: b.host, key: both }]), 'key_taken', '[1].key');
    // The same key on the short-link host is another place.
    expect((await b.create({ key })).shortUrl).toBe(`https://${SHORT_HOST}/${key}`);
  });

  it('a domain the workspace does not hold active is 400 domain_not_active naming the item', async () => {
    const b = await branded(t, { activeHost: true });
    const pending = await b.api.claim({ host: `pending-${freshKey()}.example` });
    expectError(await b.post([{}, { domain: pending.host }]), 'domain_not_active', '[1].domain');
    expectError(await b.post([{ domain: 'nobody.example' }]), 'domain_not_active', '[0].domain');
    expectError(await b.post([{ domain: 'not a host' }]), 'domain_not_active', '[0].domain');
    const other = await branded(t);
    expectError(await other.post([{ domain: b.host, key: freshKey() }]), 'domain_not_active', '[0].domain');
    const link = await other.create();
    expectError(await other.put([{ id: link.id, domain: b.host }]), 'domain_not_active', '[0].domain');
  });

  it('PUT moves a link between hosts: a chosen key goes with it, the short id as key comes back as key null', async () => {
    const b = await branded(t, { activeHost: true });
    const key = freshKey();
    const link = await b.create({ key });
    const moved = await b.put([{ id: link.id, domain: b.host }]);
    expectStatus(moved, 200);
    expect(moved.json<LinkOut[]>()[0]).toMatchObject({ domain: b.host, key, shortUrl: `https://${b.host}/${key}` });
    await expect.poll(async () => (await visit(t, b.host, `/${key}`)).statusCode).toBe(302);
    expectStatus(await visit(t, SHORT_HOST, `/${key}`), 404);
    const plain = await b.put([{ id: link.id, key: null }]);
    expect(plain.json<LinkOut[]>()[0]).toMatchObject({ domain: b.host, key: link.shortId });
    const home = await b.put([{ id: link.id, domain: SHORT_HOST }]);
    expect(home.json<LinkOut[]>()[0]).toMatchObject({ domain: SHORT_HOST, key: null, shortUrl: `https://${SHORT_HOST}/${link.shortId}` });
    // The key it had on the short-link host is held for it (30 days), not for others.
    expectError(await b.post([{ key }]), 'key_taken', '[0].key');
    expect((await b.put([{ id: link.id, key }])).json<LinkOut[]>()[0]!.key).toBe(key);
  });

  it('giving up the host sends its links back to the short-link host by short id', async () => {
    const b = await branded(t, { activeHost: true });
    const link = await b.create({ domain: b.host, key: freshKey() });
    expectStatus(await b.api.send('DELETE', `/api/domains/${b.domainId}`), 200);
    const [after] = (await b.api.send('GET', `/api/links?id=${link.id}`)).json<LinkOut[]>();
    expect(after).toMatchObject({ domain: SHORT_HOST, key: null, shortUrl: `https://${SHORT_HOST}/${link.shortId}` });
  });
});
