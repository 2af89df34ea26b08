/**
 * GET /api/export over HTTP (issue 25, operations.md §13 "Export"): the workspace as NDJSON,
 * each line a record with its `type` first, in the order collections, tags, partners, links,
 * customers, clicks, leads, sales; each record exactly as the API's own list shows it; nothing
 * of another workspace; the six read scopes (403 with missingScopes); paging past one page, where
 * the export reads by keyset (after the last row's created_at and seq) and every record of one
 * bulk request shares one created_at, so each page boundary falls inside a tie.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../src/core/scopes.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { within } from '../../helpers/wait.js';
import { conversionClient, type ConversionApi } from '../conversions/helpers.js';

type Rec = Record<string, unknown> & { type: string; id: string };
const ORDER = ['collection', 'tag', 'partner', 'link', 'customer', 'click', 'lead', 'sale'];

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

function parse(body: string): Rec[] {
  expect(body.endsWith('\n')).toBe(true);
  return body
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Rec);
}

async function exported(api: ConversionApi, key?: string) {
  const res = await api.send('GET', '/api/export', undefined, key);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
  return parse(res.body);
}

async function list<T>(api: ConversionApi, url: string): Promise<T[]> {
  const res = await api.send('GET', url);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<T[]>();
}

/** The collection conversionClient made, which every new link needs. */
async function firstCollection(api: ConversionApi): Promise<string> {
  return (await list<{ id: string }>(api, '/api/collections?sort=asc'))[0]!.id;
}

async function ids(api: ConversionApi, url: string, body: unknown[]): Promise<string[]> {
  const res = await api.send('POST', url, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }[]>().map((r) => r.id);
}

/** A workspace with 2 collections, 3 tags, a partner, links (tagged, password), 3 clicks, a lead and a sale. */
async function filled() {
  const api = await conversionClient(t);
  await ids(api, '/api/collections', [{ name: 'Second' }]);
  const tagIds = await ids(api, '/api/tags', [{ name: 'alpha' }, { name: 'beta' }, { name: 'gamma' }]);
  const [partnerId] = await ids(api, '/api/partners', [{ name: 'Affiliate' }]);
  const link = await api.link();
  const collectionId = await firstCollection(api);
  await ids(api, '/api/links', [
    { url: 'https://shop.example/tagged', collectionId, tagIds: [tagIds[2], tagIds[0]], partnerId },
    { url: 'https://shop.example/secret', collectionId, password: 'open sesame' },
  ]);
  const clickId = await api.click(link);
  await api.click(link);
  await api.click(link);
  const seen = await within(10_000, async () => (await list(api, '/api/analytics?take=5000')).length === 3);
  expect(seen).toBe(true);
  await api.okLead({ clickId, eventName: 'Sign up', customerExternalId: 'user-1', customerName: 'Ada' });
  await api.okSale({ clickId, amount: 4999, currency: 'eur', customerExternalId: 'user-1', customerName: 'Ada' });
  return api;
}

/** What the API's own lists show, with each record's type, in the export's order. */
async function apiView(api: ConversionApi): Promise<Rec[]> {
  const typed = (type: string, records: Record<string, unknown>[]) => records.map((r) => ({ type, ...r }) as Rec);
  const events = await list<Record<string, unknown> & { type: string }>(api, '/api/events?sort=asc&take=5000');
  return [
    ...typed('collection', await list(api, '/api/collections?sort=asc&take=5000')),
    ...typed('tag', await list(api, '/api/tags?sort=asc&take=5000')),
    ...typed('partner', await list(api, '/api/partners?sort=asc&take=5000')),
    ...typed('link', await list(api, '/api/links?sort=asc&take=5000')),
    ...typed('customer', await list(api, '/api/customers?sort=asc&take=5000')),
    ...typed('click', await list(api, '/api/analytics?sort=asc&take=5000')),
    ...(events.filter((e) => e.type === 'lead') as Rec[]),
    ...(events.filter((e) => e.type === 'sale') as Rec[]),
  ];
}

describe('GET /api/export', () => {
  let api: ConversionApi;
  let other: ConversionApi;

  beforeAll(async () => {
    other = await filled();
    api = await filled();
  });

  it('streams every record, type first, in the stated order, exactly as the API shows it', async () => {
    const records = await exported(api);
    const counts = Object.fromEntries(ORDER.map((type) => [type, records.filter((r) => r.type === type).length]));
    expect(counts).toEqual({ collection: 2, tag: 3, partner: 1, link: 3, customer: 1, click: 3, lead: 1, sale: 1 });
    const ranks = records.map((r) => ORDER.indexOf(r.type));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    for (const r of records) expect(Object.keys(r)[0]).toBe('type');
    expect(records).toEqual(await apiView(api));
    const tagged = records.find((r) => r.type === 'link' && r.url === 'https://shop.example/tagged')!;
    expect((tagged.tagIds as string[]).length).toBe(2);
    expect(records.find((r) => r.type === 'link' && r.url === 'https://shop.example/secret')!.password).toBe('open sesame');
    expect(tagged).toHaveProperty('aliases');
  });

  it('never holds another workspace’s data', async () => {
    const mine = new Set((await exported(api)).map((r) => r.id));
    const theirs = await exported(other);
    expect(theirs.length).toBe(15);
    for (const r of theirs) expect(mine.has(r.id)).toBe(false);
  });

  it('needs all six read scopes: a key missing one gets 403 naming it', async () => {
    for (const lacking of ['linksRead', 'customersRead', 'analyticsRead'] as const) {
      const { key } = await api.ws.newKey(SCOPES.filter((s) => s !== lacking));
      const res = await api.send('GET', '/api/export', undefined, key);
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toMatchObject({ error: { code: 'missing_scopes' }, missingScopes: [lacking] });
    }
    const { key } = await api.ws.newKey(['linksRead', 'tagsRead']);
    const res = await api.send('GET', '/api/export', undefined, key);
    expect(res.statusCode).toBe(403);
    expect(res.json<{ missingScopes: string[] }>().missingScopes.sort()).toEqual(['analyticsRead', 'collectionsRead', 'customersRead', 'partnersRead']);
  });
});

describe('GET /api/export of a workspace larger than one page', () => {
  it('holds every link once, oldest first, as GET /api/links shows them', async () => {
    const api = await conversionClient(t);
    const patched = await t.admin('PATCH', `/workspaces/${api.ws.id}`, { maxBulkItems: 5000 });
    expect(patched.statusCode, patched.body).toBe(200);
    const collectionId = await firstCollection(api);
    await ids(
      api,
      '/api/links',
      Array.from({ length: 2500 }, (_, i) => ({ url: `https://shop.example/p/${i}`, collectionId })),
    );
    const links = (await exported(api)).filter((r) => r.type === 'link');
    expect(links.length).toBe(2500);
    const shown = await list<Record<string, unknown>>(api, '/api/links?sort=asc&take=5000');
    expect(links).toEqual(shown.map((l) => ({ type: 'link', ...l })));
    expect(new Set(links.map((l) => l.id)).size).toBe(2500);
  });

  it('pages past a boundary inside records created in the same millisecond: each once, in the list’s order', async () => {
    const api = await conversionClient(t);
    const patched = await t.admin('PATCH', `/workspaces/${api.ws.id}`, { maxBulkItems: 5000 });
    expect(patched.statusCode, patched.body).toBe(200);
    const kinds = [
      ['collection', '/api/collections', (i: number) => ({ name: `Collection ${i}` })],
      ['tag', '/api/tags', (i: number) => ({ name: `tag-${i}` })],
      ['partner', '/api/partners', (i: number) => ({ name: `Partner ${i}` })],
    ] as const;
    // One request each: one transaction, so one created_at for all 2,100 (more than two pages).
    for (const [, url, item] of kinds)
      await ids(
        api,
        url,
        Array.from({ length: 2100 }, (_, i) => item(i)),
      );
    const records = await exported(api);
    for (const [type, url] of kinds) {
      const shown = await list<Record<string, unknown>>(api, `${url}?sort=asc&take=5000`);
      const made = shown.slice(-2100);
      expect(new Set(made.map((r) => r.createdAt)).size, `${type}: one createdAt`).toBe(1);
      const got = records.filter((r) => r.type === type);
      expect(new Set(got.map((r) => r.id)).size).toBe(got.length);
      expect(got).toEqual(shown.map((r) => ({ type, ...r })));
    }
  });
});
