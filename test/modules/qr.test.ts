import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

describe('GET /api/qr', () => {
  test('renders a PNG with the defaults and needs no key', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/qr?text=https%3A%2F%2Flt.test%2Fabc' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.rawPayload.subarray(0, 4).equals(PNG_MAGIC)).toBe(true);
    expect(res.rawPayload.readUInt32BE(16)).toBe(600); // IHDR width: the default size
  });

  test('honours size, colours, margin and svg format', async () => {
    const res = await t.inject({
      method: 'GET',
      url: '/api/qr?text=hello&size=128&foreground=1d4ed8&background=fef3c7&margin=0&errorCorrection=H&format=svg',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.body).toContain('<svg');
    expect(res.body.toLowerCase()).toContain('#1d4ed8');
    expect(res.body.toLowerCase()).toContain('#fef3c7');
    const png = await t.inject({ method: 'GET', url: '/api/qr?text=hello&size=128' });
    expect(png.rawPayload.readUInt32BE(16)).toBe(128);
  });

  test('a link qrCode URL renders', async () => {
    const ws = await t.workspace();
    const h = { authorization: `Bearer ${ws.key}` };
    const [collection] = (await t.inject({ method: 'POST', url: '/api/collections', headers: h, payload: [{ name: 'c' }] })).json();
    const [link] = (
      await t.inject({ method: 'POST', url: '/api/links', headers: h, payload: [{ url: 'https://example.com', collectionId: collection.id }] })
    ).json();
    const qr = new URL(link.qrCode);
    // The short URL with the QR marker: visits through the code are recorded as trigger 'qr'.
    expect(qr.searchParams.get('text')).toBe(`${link.shortUrl}?ltqr=1`);
    for (const p of ['size', 'errorCorrection', 'foreground', 'background', 'margin', 'format']) expect(qr.searchParams.has(p)).toBe(true);
    const res = await t.inject({ method: 'GET', url: qr.pathname + qr.search });
    expect(res.statusCode).toBe(200);
  });

  test.each([
    ['missing text', ''],
    ['size too small', 'text=a&size=10'],
    ['size too large', 'text=a&size=5000'],
    ['bad colour', 'text=a&foreground=red'],
    ['bad error correction', 'text=a&errorCorrection=X'],
    ['bad format', 'text=a&format=gif'],
    ['negative margin', 'text=a&margin=-1'],
    ['text beyond QR capacity', `text=${'x'.repeat(2000)}&errorCorrection=H`],
  ])('%s is a 400', async (_name, query) => {
    const res = await t.inject({ method: 'GET', url: `/api/qr?${query}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_query');
    expect(res.json().error.ar).toMatch(/[\u0600-\u06FF]/);
  });
});

describe('GET /api/qr caching', () => {
  test('answers with an ETag and Cache-Control, and 304 to If-None-Match', async () => {
    const first = await t.inject({ method: 'GET', url: '/api/qr?text=cache-me&format=svg' });
    expect(first.headers['cache-control']).toMatch(/max-age=\d+/);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^".+"$/);
    const again = await t.inject({ method: 'GET', url: '/api/qr?text=cache-me&format=svg', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const other = await t.inject({ method: 'GET', url: '/api/qr?text=cache-me&format=png', headers: { 'if-none-match': etag } });
    expect(other.statusCode).toBe(200);
    expect(other.headers.etag).not.toBe(etag);
  });
});
