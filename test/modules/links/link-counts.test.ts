/** GET /api/links/counts: live links per collection, tag or partner of the workspace (the library pages' counts). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const byId = (list: { id: string; links: number }[]) => Object.fromEntries(list.map((c) => [c.id, c.links]));

describe('GET /api/links/counts', () => {
  it('counts live links by collection, tag (once under each of a link’s tags) and partner; deleted links and other workspaces are not counted', async () => {
    const ws = await t.workspace();
    const send = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
      t.inject({ method, url, headers: bearer(ws.key), payload: payload as object });
    const [c1, c2, empty] = (await send('POST', '/api/collections', [{ name: 'A' }, { name: 'B' }, { name: 'C' }])).json<{ id: string }[]>();
    const [red, blue] = (await send('POST', '/api/tags', [{ name: 'red' }, { name: 'blue' }])).json<{ id: string }[]>();
    const [ada] = (await send('POST', '/api/partners', [{ name: 'Ada', email: 'ada@example.com' }])).json<{ id: string }[]>();
    const made = await send('POST', '/api/links', [
      { url: 'https://e.com/1', collectionId: c1!.id, tagIds: [red!.id, blue!.id], partnerId: ada!.id },
      { url: 'https://e.com/2', collectionId: c1!.id, tagIds: [red!.id] },
      { url: 'https://e.com/3', collectionId: c2!.id, partnerId: ada!.id },
      { url: 'https://e.com/4', collectionId: c2!.id, tagIds: [blue!.id] },
    ]);
    expect(made.statusCode, made.body).toBe(201);
    const links = made.json<{ id: string }[]>();
    expect((await send('DELETE', '/api/links', [links[3]!.id])).statusCode).toBe(200);

    const other = await t.workspace();
    await t.inject({ method: 'POST', url: '/api/links', headers: bearer(other.key), payload: [{ url: 'https://e.com/x', collectionId: c1!.id }] });

    const counts = async (by: string) => {
      const res = await send('GET', `/api/links/counts?by=${by}`);
      expect(res.statusCode, res.body).toBe(200);
      return byId(res.json());
    };
    expect(await counts('collection')).toEqual({ [c1!.id]: 2, [c2!.id]: 1 });
    expect(await counts('tag')).toEqual({ [red!.id]: 2, [blue!.id]: 1 });
    expect(await counts('partner')).toEqual({ [ada!.id]: 2 });
    expect(empty).toBeDefined();
  });

  it('needs linksRead; an unknown `by` is a 400 naming it', async () => {
    const ws = await t.workspace();
    const { key } = await ws.newKey(['collectionsRead']);
    expect((await t.inject({ method: 'GET', url: '/api/links/counts?by=collection', headers: bearer(key) })).statusCode).toBe(403);
    const bad = await t.inject({ method: 'GET', url: '/api/links/counts?by=domain', headers: bearer(ws.key) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ field: string }>().field).toBe('by');
  });
});
