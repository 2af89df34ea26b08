/**
 * Aliases on links (operations.md §13): PUT/POST /api/links add and remove them on hosts the
 * workspace claims; unique server-wide by host and exact path (one trailing slash ignored);
 * bulk writes stay all-or-nothing with the failing item and field named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { activeHostWithLink, api, expectStatus, freshHost } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

type LinkOut = { id: string; aliases: string[] };
const errorOf = (res: { json<T>(): T }) => res.json<{ field: string; reason: string }>();

describe('aliases through /api/links', () => {
  it('a new link has aliases []; POST stores them normalised (https, punycode host, no trailing slash), case kept', async () => {
    const ws = await t.workspace();
    const a = api(t, ws);
    const host = freshHost();
    await a.claim({ host }); // pending: aliases may be stored, they route once active
    const collectionId = await a.collection();
    const res = await a.send('POST', '/api/links', [
      { url: 'https://shop.example/', collectionId },
      { url: 'https://shop.example/', collectionId, aliases: [`http://${host.toUpperCase()}/Spring/`, `https://${host}/spring`] },
    ]);
    expectStatus(res, 201);
    const [plain, aliased] = res.json<LinkOut[]>();
    expect(plain!.aliases).toEqual([]);
    expect(aliased!.aliases).toEqual([`https://${host}/Spring`, `https://${host}/spring`]);
    const listed = await a.send('GET', `/api/links?id=${aliased!.id}`);
    expect(listed.json<LinkOut[]>()[0]!.aliases).toEqual(aliased!.aliases);
  });

  it('PUT replaces the list, [] clears it, omitted keeps it; aliases move between links of one request', async () => {
    const { api: a, host, link } = await activeHostWithLink(t, { paths: ['/one', '/two'] });
    const kept = await a.send('PUT', '/api/links', [{ id: link.id, title: 'x' }]);
    expect(kept.json<LinkOut[]>()[0]!.aliases).toEqual([`https://${host}/one`, `https://${host}/two`]);
    const replaced = await a.send('PUT', '/api/links', [
      { id: link.id, aliases: [`https://${host}/two`, `https://${host}/three`] },
      { url: 'https://shop.example/new', collectionId: await a.collection(), aliases: [] },
    ]);
    expectStatus(replaced, 200);
    expect(replaced.json<LinkOut[]>()[0]!.aliases).toEqual([`https://${host}/two`, `https://${host}/three`]);
    const moved = await a.send('PUT', '/api/links', [
      { id: link.id, aliases: [] },
      { url: 'https://shop.example/other', collectionId: await a.collection(), aliases: [`https://${host}/two`] },
    ]);
    expectStatus(moved, 200);
    expect(moved.json<LinkOut[]>().map((l) => l.aliases)).toEqual([[], [`https://${host}/two`]]);
  });

  it('an alias held by another link (any workspace) is a 400 naming the item and field; nothing is written', async () => {
    const first = await activeHostWithLink(t, { paths: ['/taken'] });
    const taken = await first.api.send('POST', '/api/links', [
      { url: 'https://shop.example/a', collectionId: first.collectionId, aliases: [`https://${first.host}/free`] },
      { url: 'https://shop.example/b', collectionId: first.collectionId, aliases: [`https://${first.host}/free2`, `https://${first.host}/taken/`] },
    ]);
    expectStatus(taken, 400);
    expect(errorOf(taken)).toMatchObject({ field: '[1].aliases[1]', reason: 'alias_taken' });
    const free = await first.api.send('POST', '/api/links', [
      { url: 'https://shop.example/a', collectionId: first.collectionId, aliases: [`https://${first.host}/free`] },
    ]);
    expectStatus(free, 201); // the failed request wrote nothing
    // Case matters: /Taken is another alias.
    expectStatus(
      await first.api.send('PUT', '/api/links', [{ id: first.link.id, aliases: [`https://${first.host}/taken`, `https://${first.host}/Taken`] }]),
      200,
    );
  });

  it('refuses aliases on unclaimed hosts, malformed ones and duplicates within the request', async () => {
    const { api: a, host, collectionId } = await activeHostWithLink(t);
    const post = (aliases: unknown) =>
      a.send('POST', '/api/links', [
        { url: 'https://shop.example/', collectionId },
        { url: 'https://shop.example/', collectionId, aliases },
      ]);
    const cases: [unknown, string, string][] = [
      [[`https://${freshHost()}/x`], '[1].aliases[0]', 'alias_host_not_claimed'],
      [[`https://${host}/`], '[1].aliases[0]', 'alias_invalid'],
      [[`https://${host}/x?y=1`], '[1].aliases[0]', 'alias_invalid'],
      [[`https://${host}:8443/x`], '[1].aliases[0]', 'alias_invalid'],
      [[`ftp://${host}/x`], '[1].aliases[0]', 'alias_invalid'],
      [['not a url'], '[1].aliases[0]', 'alias_invalid'],
      [[`https://${host}/x`, `https://${host}/x/`], '[1].aliases[1]', 'duplicate_in_request'],
    ];
    for (const [aliases, field, reason] of cases) {
      const res = await post(aliases);
      expectStatus(res, 400);
      expect(errorOf(res), JSON.stringify(aliases)).toMatchObject({ field, reason });
    }
    const twice = await a.send('POST', '/api/links', [
      { url: 'https://shop.example/', collectionId, aliases: [`https://${host}/dup`] },
      { url: 'https://shop.example/', collectionId, aliases: [`https://${host}/dup`] },
    ]);
    expect(errorOf(twice)).toMatchObject({ field: '[1].aliases[0]', reason: 'duplicate_in_request' });
  });

  it("deleting a link frees its aliases; removing the claim removes the workspace's aliases on it", async () => {
    const { api: a, host, link, domain, collectionId } = await activeHostWithLink(t, { paths: ['/gone'] });
    expectStatus(await a.send('DELETE', '/api/links', [link.id]), 200);
    const reused = await a.send('POST', '/api/links', [{ url: 'https://shop.example/', collectionId, aliases: [`https://${host}/gone`] }]);
    expectStatus(reused, 201);
    expectStatus(await a.send('DELETE', `/api/domains/${domain.id}`), 200);
    const after = await a.send('GET', `/api/links?id=${reused.json<LinkOut[]>()[0]!.id}`);
    expect(after.json<LinkOut[]>()[0]!.aliases).toEqual([]);
  });

  it('verification removes the aliases other workspaces stored on the host while pending', async () => {
    const host = freshHost();
    const [w1, w2] = [await t.workspace(), await t.workspace()];
    await api(t, w1).claim({ host });
    const c2 = await api(t, w2).claim({ host });
    const squat = await api(t, w1).send('POST', '/api/links', [
      { url: 'https://shop.example/', collectionId: await api(t, w1).collection(), aliases: [`https://${host}/spring`] },
    ]);
    expectStatus(squat, 201);
    expectStatus(await t.admin('POST', `/domains/${c2.id}/verify`), 200);
    const mine = await api(t, w2).send('POST', '/api/links', [
      { url: 'https://shop.example/', collectionId: await api(t, w2).collection(), aliases: [`https://${host}/spring`] },
    ]);
    expectStatus(mine, 201);
    const theirs = await api(t, w1).send('GET', `/api/links?id=${squat.json<LinkOut[]>()[0]!.id}`);
    expect(theirs.json<LinkOut[]>()[0]!.aliases).toEqual([]);
  });
});
