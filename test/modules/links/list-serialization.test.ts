/**
 * GET /api/links writes its page with JSON.stringify, not the schema's serializer
 * (fast-json-stringify): the bytes must be the ones the schema's serializer would write. Through
 * HTTP, links with every field set (and with stats) answer exactly what fast-json-stringify,
 * compiled from the served OpenAPI document, writes for the same records — a field toLink added
 * outside the schema would show here, since that serializer drops it. A property: for any
 * Link-shaped record (any text, nulls, maps), the two write the same bytes.
 * Runs on PGlite, and on PostgreSQL + Redis with DATABASE_URL.
 */
import fc from 'fast-check';
import fastJson from 'fast-json-stringify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';

type Serialize = (doc: unknown) => string;

let t: TestApp;
let key: string;
let serializeList: Serialize;

/** The 200 response of GET /api/links as the served document describes it, compiled. */
async function listSerializer(): Promise<Serialize> {
  const doc = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json<
    Record<string, unknown> & { paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: object }> }> } }> }
  >();
  const schema = doc.paths['/api/links']!.get.responses['200']!.content['application/json']!.schema;
  // Its $refs point into the document (#/components/schemas/…): the document is the root.
  return fastJson({ ...schema, components: doc.components } as never) as Serialize;
}

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.workspace()).key;
  serializeList = await listSerializer();
  const post = async (path: string, items: unknown[]) => {
    const res = await t.inject({ method: 'POST', url: path, headers: bearer(key), payload: items as object[] });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string }[]>();
  };
  const [collection] = await post('/api/collections', [{ name: 'c' }]);
  const tags = await post('/api/tags', [{ name: 'a' }, { name: 'b' }]);
  const [partner] = await post('/api/partners', [{ name: 'p' }]);
  await post('/api/links', [
    { url: 'https://example.com/plain', collectionId: collection!.id },
    {
      url: 'https://example.com/every?x="quoted"&y=\\',
      title: 'Quote " backslash \\ tab\tand «ÄÖ» 😀 خصم',
      description: 'Line\u2028separator and emoji 🎉',
      image: 'https://example.com/i.png',
      utm: { source: 'news"letter', campaign: 'spring\\sale' },
      expiresAt: '2031-01-02T03:04:05.678+02:00',
      expiredUrl: 'https://example.com/over',
      password: 'pa"ss\\word',
      ios: 'https://example.com/ios',
      android: 'https://example.com/android',
      geo: { DE: 'https://example.com/de', FR: 'https://example.com/fr' },
      collectionId: collection!.id,
      tagIds: tags.map((x) => x.id),
      externalId: 'ext-"1"',
      tenantId: 'tenant-1',
      partnerId: partner!.id,
      qrDesign: { foreground: '102030', background: 'FFFFFF', size: 400, margin: 2 },
    },
  ]);
});

afterAll(async () => {
  await t?.close();
});

describe('GET /api/links: the bytes the schema serializer would write', () => {
  for (const query of ['', '?withStats=true', '?take=1&sort=asc']) {
    it(`GET /api/links${query}`, async () => {
      const res = await t.inject({ method: 'GET', url: `/api/links${query}`, headers: bearer(key) });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const page = res.json<object[]>();
      expect(page.length).toBeGreaterThan(0);
      expect(res.body).toBe(serializeList(page));
      // The page goes out as UTF-8 bytes: its length counts bytes, not characters (emoji, Arabic).
      expect(res.headers['content-length']).toBe(String(Buffer.byteLength(serializeList(page))));
    });
  }

  it('HEAD /api/links: the headers of the GET, no body', async () => {
    const get = await t.inject({ method: 'GET', url: '/api/links', headers: bearer(key) });
    const head = await t.inject({ method: 'HEAD', url: '/api/links', headers: bearer(key) });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers['x-total-count']).toBe(get.headers['x-total-count']);
    expect(Number(get.headers['x-total-count'])).toBeGreaterThan(0);
  });

  it('the link with every field set shows each of them', async () => {
    const page = (await t.inject({ method: 'GET', url: '/api/links', headers: bearer(key) })).json<Record<string, unknown>[]>();
    const every = page.find((l) => typeof l.title === 'string')!;
    expect(every.password).toBe('pa"ss\\word');
    expect(every.title).toBe('Quote " backslash \\ tab\tand «ÄÖ» 😀 خصم');
    expect(every.geo).toEqual({ DE: 'https://example.com/de', FR: 'https://example.com/fr' });
    expect(every.tagIds).toHaveLength(2);
  });
});

describe('JSON.stringify and the schema serializer agree on any Link record', () => {
  const text = fc.string({ unit: 'grapheme', maxLength: 12 });
  const nullableText = fc.option(text, { nil: null });
  const instant = fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString());
  const uuid = fc.uuid();
  const map = fc.option(fc.dictionary(text, text, { maxKeys: 3 }), { nil: null });
  const link = fc.record({
    id: uuid,
    url: text,
    shortUrl: text,
    qrCode: text,
    title: nullableText,
    description: nullableText,
    image: nullableText,
    utm: map,
    expiresAt: fc.option(instant, { nil: null }),
    expiredUrl: nullableText,
    password: nullableText,
    cloaked: fc.boolean(),
    ios: nullableText,
    android: nullableText,
    geo: map,
    collectionId: uuid,
    tagIds: fc.array(uuid, { maxLength: 3 }),
    externalId: nullableText,
    tenantId: nullableText,
    partnerId: fc.option(uuid, { nil: null }),
    aliases: fc.array(text, { maxLength: 2 }),
    domain: text,
    key: nullableText,
    shortId: text,
    qrDesign: fc.record({
      foreground: text,
      background: text,
      size: fc.integer({ min: 1, max: 2000 }),
      margin: fc.integer({ min: 0, max: 20 }),
      errorCorrection: fc.constantFrom('L', 'M', 'Q', 'H'),
      logoId: fc.option(uuid, { nil: null }),
    }),
    test: fc.option(
      fc.record({
        variants: fc.array(fc.record({ url: text, weight: fc.integer({ min: 10, max: 90 }) }), { minLength: 2, maxLength: 4 }),
        endsAt: instant,
        metric: fc.constantFrom('leads', 'sales', 'revenue'),
        currency: fc.option(text, { nil: null }),
        autoApply: fc.boolean(),
      }),
      { nil: null },
    ),
    testId: fc.option(uuid, { nil: null }),
    createdAt: instant,
    updatedAt: instant,
  });

  it('writes the same bytes', () => {
    fc.assert(
      fc.property(fc.array(link, { maxLength: 4 }), (links) => {
        expect(JSON.stringify(links)).toBe(serializeList(links));
      }),
      { numRuns: 300 },
    );
  });
});
