/**
 * Two instances on one PostgreSQL and one Redis (operations.md §13, §17): a host verified,
 * changed or removed on A routes (or stops routing) on B within the bus's delay, and an alias
 * or a key (§21) added or removed on A does too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, onRedis, startTestApp, type TestApp } from '../../helpers/app.js';
import { within } from '../../helpers/wait.js';
import { activeHostWithLink, api, expectStatus, freshHost } from './helpers.js';

describe.skipIf(!onPostgres || !onRedis)('two instances agree on claimed hosts and aliases', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  const on = (t: TestApp, host: string, url: string) => t.inject({ method: 'GET', url, headers: { host } });
  /** B answers `status` (and `location`) within the bus's delay (bounded: 2 s; well under the 60 s safety net). */
  const bAgrees = (host: string, url: string, status: number, location?: string) =>
    within(
      2000,
      async () => {
        const res = await on(b, host, url);
        return res.statusCode === status && (location === undefined || res.headers.location === location);
      },
      20,
    );

  it('verification on A makes B route the host; a PATCH and the removal on A reach B', async () => {
    const ws = await a.workspace();
    const host = freshHost();
    const claimed = await api(a, ws).claim({ host, notFoundUrl: 'https://shop.example/one' });
    expectStatus(await on(b, host, '/old'), 404); // pending on both: served as before
    expectStatus(await a.admin('POST', `/domains/${claimed.id}/verify`), 200);
    expect(await bAgrees(host, '/old', 302, 'https://shop.example/one')).toBe(true);
    expectStatus(await api(a, ws).send('PATCH', `/api/domains/${claimed.id}`, { notFoundUrl: 'https://shop.example/two' }), 200);
    expect(await bAgrees(host, '/old', 302, 'https://shop.example/two')).toBe(true);
    expectStatus(await api(a, ws).send('DELETE', `/api/domains/${claimed.id}`), 200);
    expect(await bAgrees(host, '/old', 404)).toBe(true);
  });

  it('an alias cached on B is dropped when A removes it, and a new one is found', async () => {
    const { api: wsApi, host, link } = await activeHostWithLink(a, { notFoundUrl: 'https://shop.example/missing' });
    expect(await bAgrees(host, '/spring', 302)).toBe(true); // B now holds /spring in its alias cache
    expectStatus(await wsApi.send('PUT', '/api/links', [{ id: link.id, aliases: [`https://${host}/summer`] }]), 200);
    expect(await bAgrees(host, '/spring', 302, 'https://shop.example/missing')).toBe(true);
    expect(await bAgrees(host, '/summer', 302)).toBe(true);
  });

  it('a key (operations.md §21) cached on B is dropped when A changes it, on the short-link host and on a claimed one', async () => {
    const { api: wsApi, host, collectionId } = await activeHostWithLink(a);
    const [onShort, onClaimed] = [`k-${freshHost('s').split('.')[0]}`, `k-${freshHost('c').split('.')[0]}`];
    const made = await wsApi.send('POST', '/api/links', [
      { url: 'https://shop.example/short', collectionId, key: onShort },
      { url: 'https://shop.example/claimed', collectionId, domain: host, key: onClaimed },
    ]);
    expectStatus(made, 201);
    const [shortLink, claimedLink] = made.json<{ id: string }[]>();
    expect(await bAgrees('lt.test', `/${onShort}`, 302)).toBe(true); // cached on B
    expect(await bAgrees(host, `/${onClaimed}`, 302)).toBe(true);
    const moved = await wsApi.send('PUT', '/api/links', [
      { id: shortLink!.id, key: `${onShort}-2` },
      { id: claimedLink!.id, key: `${onClaimed}-2` },
    ]);
    expectStatus(moved, 200);
    expect(await bAgrees('lt.test', `/${onShort}`, 404)).toBe(true);
    expect(await bAgrees(host, `/${onClaimed}`, 404)).toBe(true);
    expect(await bAgrees('lt.test', `/${onShort}-2`, 302)).toBe(true);
    expect(await bAgrees(host, `/${onClaimed}-2`, 302)).toBe(true);
  });
});
