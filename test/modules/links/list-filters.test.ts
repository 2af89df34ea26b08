/**
 * The list filters GET /api/links adds to api.md's (documented extensions): collectionId,
 * tagId and search narrow the result (each must hold, with the any-of group of id,
 * externalId, tenantId, partnerId), work with take/skip/sort, and X-Total-Count says how
 * many match in all. Another workspace's links never appear. A property: search returns
 * exactly the links whose title, url or short id contains the term, ignoring case, with LIKE
 * wildcards taken literally. Runs on PGlite, and on PostgreSQL + Redis with DATABASE_URL.
 */
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';

interface Link {
  id: string;
  url: string;
  shortUrl: string;
  title: string | null;
  collectionId: string;
  tagIds: string[];
  partnerId: string | null;
  createdAt: string;
}

let t: TestApp;
let get: (query: string) => Promise<LightMyRequestResponse>;
let all: Link[];
let c1: string, c2: string, red: string, blue: string, partner: string;
let foreignCollection: string, foreignTag: string;

/** Titles chosen to catch LIKE wildcards, case, Arabic and an absent title. */
const TITLES = ['Spring Sale', 'spring_sale', 'SPRING%SALE', 'Summer 50% off', 'back\\slash', 'خصم الربيع', null, 'Winter', 'under_score', 'Autumn'];

beforeAll(async () => {
  t = await startTestApp();
  const ws = await t.workspace();
  const other = await t.workspace();
  const post = async (key: string, path: string, items: unknown[]) => {
    const res = await t.inject({ method: 'POST', url: path, headers: bearer(key), payload: items as object[] });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string }[]>();
  };
  [c1, c2] = (await post(ws.key, '/api/collections', [{ name: 'one' }, { name: 'two' }])).map((c) => c.id) as [string, string];
  [red, blue] = (await post(ws.key, '/api/tags', [{ name: 'red' }, { name: 'blue' }])).map((c) => c.id) as [string, string];
  partner = (await post(ws.key, '/api/partners', [{ name: 'p' }]))[0]!.id;
  // 40 links: every combination of collection, tags and partner appears several times.
  await post(
    ws.key,
    '/api/links',
    Array.from({ length: 40 }, (_, i) => ({
      url: `https://shop.example.com/${i % 3 === 0 ? 'Spring' : 'item'}/${i}?q=a_b%25c`,
      ...(TITLES[i % TITLES.length] !== null ? { title: TITLES[i % TITLES.length] } : {}),
      collectionId: i % 2 ? c1 : c2,
      tagIds: i % 3 === 0 ? [red] : i % 3 === 1 ? [red, blue] : [],
      ...(i % 4 === 0 ? { partnerId: partner } : {}),
    })),
  );
  // The other workspace: same titles and urls, its own collection and tag.
  foreignCollection = (await post(other.key, '/api/collections', [{ name: 'one' }]))[0]!.id;
  foreignTag = (await post(other.key, '/api/tags', [{ name: 'red' }]))[0]!.id;
  await post(
    other.key,
    '/api/links',
    TITLES.map((title, i) => ({
      url: `https://shop.example.com/Spring/${i}`,
      ...(title ? { title } : {}),
      collectionId: foreignCollection,
      tagIds: [foreignTag],
    })),
  );
  get = (query) => t.inject({ url: `/api/links?${query}`, headers: bearer(ws.key) });
  const res = await get('take=5000&sort=asc');
  expect(res.statusCode).toBe(200);
  all = res.json<Link[]>();
  expect(all).toHaveLength(40);
});

afterAll(async () => {
  await t?.close();
});

const q = (params: Record<string, string | number>) => new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();

async function list(params: Record<string, string | number>): Promise<{ links: Link[]; total: number }> {
  const res = await get(q(params));
  expect(res.statusCode, res.body).toBe(200);
  return { links: res.json<Link[]>(), total: Number(res.headers['x-total-count']) };
}

const ids = (links: Link[]) => links.map((l) => l.id);
const contains = (l: Link, term: string) =>
  [l.title ?? '', l.url, new URL(l.shortUrl).pathname.slice(1)].some((v) => v.toLowerCase().includes(term.toLowerCase()));

describe('GET /api/links filters (extensions)', () => {
  it('collectionId: only that collection, newest first, with the total', async () => {
    const { links, total } = await list({ collectionId: c1, take: 5000 });
    expect(ids(links)).toEqual(ids(all.filter((l) => l.collectionId === c1).reverse()));
    expect(total).toBe(20);
  });

  it('tagId: only links carrying the tag', async () => {
    expect(ids((await list({ tagId: blue, take: 5000, sort: 'asc' })).links)).toEqual(ids(all.filter((l) => l.tagIds.includes(blue))));
    expect((await list({ tagId: red })).total).toBe(all.filter((l) => l.tagIds.includes(red)).length);
  });

  it('search: title, url or short id, ignoring case; % _ and \\ are literal', async () => {
    for (const term of ['spring', 'SPRING%', '_sale', '50%', '\\', 'الربيع', 'a_b%25c', 'nothing-like-this']) {
      const { links, total } = await list({ search: term, take: 5000, sort: 'asc' });
      expect(ids(links), term).toEqual(ids(all.filter((l) => contains(l, term))));
      expect(total, term).toBe(links.length);
    }
    const shortId = new URL(all[7]!.shortUrl).pathname.slice(1);
    expect(ids((await list({ search: shortId.toUpperCase() === shortId ? shortId.toLowerCase() : shortId.toUpperCase() })).links)).toContain(all[7]!.id);
    // Empty search: no search.
    expect((await list({ search: '' })).total).toBe(40);
  });

  it('every filter together, with the any-of group, paged by take/skip in both orders', async () => {
    const match = (l: Link) => l.collectionId === c2 && l.tagIds.includes(red) && contains(l, 'spring') && l.partnerId === partner;
    const expected = all.filter(match);
    expect(expected.length).toBeGreaterThan(1);
    for (const sort of ['asc', 'desc'] as const) {
      const seen: Link[] = [];
      for (let skip = 0; skip < expected.length + 2; skip += 2) {
        const { links, total } = await list({ collectionId: c2, tagId: red, search: 'spring', partnerId: partner, take: 2, skip, sort });
        expect(total).toBe(expected.length);
        seen.push(...links);
      }
      expect(ids(seen)).toEqual(ids(sort === 'asc' ? expected : [...expected].reverse()));
    }
    // The any-of group (id OR partnerId) is then narrowed by the others.
    const anyOf = all.filter((l) => (l.id === all[1]!.id || l.partnerId === partner) && l.collectionId === c2);
    expect(ids((await list({ id: all[1]!.id, partnerId: partner, collectionId: c2, sort: 'asc' })).links)).toEqual(ids(anyOf));
  });

  it("another workspace's links never appear, whatever the filter", async () => {
    expect(await list({ collectionId: foreignCollection })).toEqual({ links: [], total: 0 });
    expect(await list({ tagId: foreignTag })).toEqual({ links: [], total: 0 });
    const own = new Set(ids(all));
    for (const term of ['Spring', 'shop.example.com', 'خصم']) {
      const { links } = await list({ search: term, take: 5000 });
      expect(
        links.every((l) => own.has(l.id)),
        term,
      ).toBe(true);
    }
  });

  it('count=false leaves X-Total-Count out; the rows are the same', async () => {
    const counted = await get('take=5&skip=5&collectionId=' + c1);
    const uncounted = await get('take=5&skip=5&count=false&collectionId=' + c1);
    expect(uncounted.statusCode).toBe(200);
    expect(counted.headers['x-total-count']).toBe('20');
    expect(uncounted.headers['x-total-count']).toBeUndefined();
    expect(uncounted.json()).toEqual(counted.json());
  });

  it('bad values are a 400 with the standard error body', async () => {
    for (const query of [
      'count=maybe',
      'collectionId=nope',
      'tagId=123',
      `tagId=urn:uuid:${red}`,
      `search=${'a'.repeat(201)}`,
      'collectionId=',
      'take=0&search=x',
    ]) {
      const res = await get(query);
      expect(res.statusCode, query).toBe(400);
      const body = res.json<{ error: { en: string; ar: string; code: string } }>();
      expect(body.error.code, query).toBe('invalid_query');
      expect(body.error.en, query).toMatch(/\S/);
      expect(body.error.ar, query).toMatch(/[\u0600-\u06FF]/);
    }
    expect((await get(`search=${'a'.repeat(200)}`)).statusCode).toBe(200);
  });

  it('property: search returns exactly the links containing the term (never one that lacks it)', async () => {
    const unit = fc.constantFrom(...'sSpPrRiInNgG_%\\/.: 5خصم'.split(''), 'ا', 'ل');
    await fc.assert(
      fc.asyncProperty(fc.string({ unit, minLength: 1, maxLength: 6 }), fc.option(fc.constantFrom(c1, c2), { nil: undefined }), async (term, collectionId) => {
        const { links, total } = await list({ search: term, take: 5000, sort: 'asc', ...(collectionId ? { collectionId } : {}) });
        for (const l of links) expect(contains(l, term), `${term} → ${l.title} ${l.url}`).toBe(true);
        expect(ids(links)).toEqual(ids(all.filter((l) => contains(l, term) && (!collectionId || l.collectionId === collectionId))));
        expect(total).toBe(links.length);
      }),
      { numRuns: 60 },
    );
  });
});
