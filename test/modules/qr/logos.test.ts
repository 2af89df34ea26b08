/**
 * Logos of a workspace (operations.md §14) through HTTP: PNG and SVG uploads become PNGs, an SVG
 * is never served back, hostile SVGs are refused or drawn harmlessly (and the server lives on),
 * the 100 KB limit, wrong types, scopes and workspace isolation.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ARABIC, countColour, PNG_MAGIC, pixelsOf, pngImage, qrFixture, type QrFixture } from './helpers.js';

let t: TestApp;
let f: QrFixture;
beforeAll(async () => {
  t = await startTestApp();
  f = await qrFixture(t);
});
afterAll(() => t.close());

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const GREEN_SQUARE = '<rect width="100" height="100" fill="#16a34a"/>';
const svg = (inner: string, attrs = 'width="100" height="100"') =>
  `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" ${attrs}>${inner}</svg>`;

function expectError(res: Awaited<ReturnType<TestApp['inject']>>, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(body.error.code).toBe(code);
  expect(body.error.en.length).toBeGreaterThan(10);
  expect(body.error.ar).toMatch(ARABIC);
  return body;
}

async function image(id: string, headers = f.headers) {
  return t.inject({ method: 'GET', url: `/api/qr-logos/${id}`, headers });
}

describe('uploading a logo', () => {
  test('a PNG: 201 with a random (v4) id; listed; its image is a PNG no larger than it was, served with the sandboxing headers', async () => {
    const res = await f.upload(
      pngImage(200, 100, () => [37, 99, 235, 255]),
      'image/png',
    );
    expect(res.statusCode, res.body).toBe(201);
    const logo = res.json();
    expect(logo).toMatchObject({ width: 200, height: 100, source: 'png' });
    expect(logo.id).toMatch(UUID_V4);

    const list = await t.inject({ method: 'GET', url: '/api/qr-logos', headers: f.headers });
    expect(list.json().map((l: { id: string }) => l.id)).toContain(logo.id);
    const got = await image(logo.id);
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toBe('image/png');
    expect(got.headers['x-content-type-options']).toBe('nosniff');
    expect(got.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'; sandbox");
    expect(pixelsOf(got.rawPayload)).toMatchObject({ width: 200, height: 100 });
  });

  test('a large PNG is made smaller (longest side 512 px), never refused for its size alone', async () => {
    const res = await f.upload(
      pngImage(2000, 1000, (x) => (x < 1000 ? [0, 0, 0, 255] : [255, 255, 255, 255])),
      'image/png',
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ width: 512, height: 256 });
  });

  test('an SVG is drawn into a PNG (longest side 512 px) and never served back as SVG', async () => {
    const res = await f.upload(svg(GREEN_SQUARE, 'viewBox="0 0 100 100" width="40" height="40"'), 'image/svg+xml; charset=utf-8');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ width: 512, height: 512, source: 'svg' });
    const got = await image(res.json().id);
    expect(got.headers['content-type']).toBe('image/png');
    expect(got.rawPayload.subarray(0, 8).equals(PNG_MAGIC)).toBe(true);
    expect(got.rawPayload.includes('<svg')).toBe(false);
    expect(pixelsOf(got.rawPayload).at(256, 256)).toEqual([0x16, 0xa3, 0x4a, 255]);
  });

  test('a body over 100 KB is a 413 with en/ar/code; 100 KB exactly is read', async () => {
    expectError(await f.upload(Buffer.alloc(101 * 1024, 0x20), 'image/svg+xml'), 413, 'body_too_large');
    // 100 KB of SVG: a green square and a comment to fill it up.
    const frame = Buffer.byteLength(svg(`${GREEN_SQUARE}<!---->`));
    const exactly = svg(`${GREEN_SQUARE}<!--${'x'.repeat(100 * 1024 - frame)}-->`);
    expect(Buffer.byteLength(exactly)).toBe(100 * 1024);
    const res = await f.upload(exactly, 'image/svg+xml');
    expect(res.statusCode, res.body).toBe(201);
  });

  test.each([
    ['a GIF', 'image/gif'],
    ['text', 'text/plain'],
    ['JSON', 'application/json'],
  ])('%s is a 400 naming the types accepted', async (_name, type) => {
    const body = expectError(await f.upload(Buffer.from('GIF89a'), type), 400, 'qr_logo_type');
    expect(body.error.en).toContain('image/png');
  });

  test('bytes that are no PNG, a PNG claiming 100,000 px a side, an empty body, a sliver: 400s', async () => {
    expectError(await f.upload(Buffer.from('not a png at all, not even close'), 'image/png'), 400, 'qr_logo_unreadable');
    const huge = pngImage(1, 1, () => [0, 0, 0, 255]);
    huge.writeUInt32BE(100_000, 16);
    huge.writeUInt32BE(100_000, 20);
    expectError(await f.upload(huge, 'image/png'), 400, 'qr_logo_shape');
    // A PNG whose header is fine and whose data is broken draws nothing; so does a transparent one.
    const broken = Buffer.concat([pngImage(50, 50, () => [0, 0, 0, 255]).subarray(0, 40), Buffer.alloc(60, 7)]);
    expectError(await f.upload(broken, 'image/png'), 400, 'qr_logo_png_blank');
    expectError(
      await f.upload(
        pngImage(50, 50, () => [0, 0, 0, 0]),
        'image/png',
      ),
      400,
      'qr_logo_png_blank',
    );
    expectError(await f.upload(Buffer.alloc(0), 'image/png'), 400, 'empty_body');
    expectError(await f.upload(svg(GREEN_SQUARE, 'width="500" height="20"'), 'image/svg+xml'), 400, 'qr_logo_shape');
  });
});

describe('hostile SVGs are refused or drawn harmlessly, and the server lives on', () => {
  test('a script and event handlers: drawn without them, the stored logo is a PNG', async () => {
    const res = await f.upload(
      svg(
        `<script>fetch('/api/links')</script>${GREEN_SQUARE.replace('/>', ' onload="alert(1)"/>')}<foreignObject><iframe src="javascript:alert(1)"/></foreignObject>`,
      ),
      'image/svg+xml',
    );
    expect(res.statusCode, res.body).toBe(201);
    const got = await image(res.json().id);
    expect(got.rawPayload.subarray(0, 8).equals(PNG_MAGIC)).toBe(true);
    expect(got.rawPayload.includes('script')).toBe(false);
  });

  test('external references are not followed: a file of the server, a relative path, a URL', async () => {
    // A red image on this machine; an SVG naming it must not get its pixels.
    const dir = mkdtempSync(join(tmpdir(), 'qr-logo-'));
    const red = join(dir, 'red.png');
    writeFileSync(
      red,
      pngImage(100, 100, () => [255, 0, 0, 255]),
    );
    const refs = [red, `file://${red}`, 'red.png', '../red.png', 'http://127.0.0.1:9/red.png', 'https://example.com/red.png'];
    for (const href of refs) {
      const only = await f.upload(svg(`<image href="${href}" width="100" height="100"/>`), 'image/svg+xml');
      expectError(only, 400, 'qr_logo_blank');
      const mixed = await f.upload(svg(`${GREEN_SQUARE}<image xlink:href="${href}" width="100" height="100"/>`), 'image/svg+xml');
      expect(mixed.statusCode, mixed.body).toBe(201);
      expect(countColour((await image(mixed.json().id)).rawPayload, [255, 0, 0], 30), href).toBe(0);
    }
    // Through an XML entity, and an external entity (XXE).
    const entity = `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY e '<image href="${red}" width="100" height="100"/>'>]>${svg('&e;')}`;
    expect((await f.upload(entity, 'image/svg+xml')).statusCode).toBe(400);
    const xxe = `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>${svg('<text>&x;</text>')}`;
    expectError(await f.upload(xxe, 'image/svg+xml'), 400, 'qr_logo_unreadable');
  });

  test('huge dimensions: drawn at 512 px; a 1 × 100,000,000 sliver refused (it aborted the process with the native renderer)', async () => {
    const big = await f.upload(
      svg(GREEN_SQUARE.replace('width="100" height="100"', 'width="100%" height="100%"'), 'width="100000000" height="100000000"'),
      'image/svg+xml',
    );
    expect(big.statusCode, big.body).toBe(201);
    expect(big.json()).toMatchObject({ width: 512, height: 512 });
    expectError(await f.upload(svg(GREEN_SQUARE, 'width="1" height="100000000"'), 'image/svg+xml'), 400, 'qr_logo_shape');
    // No size at all: resvg refuses to read it.
    expectError(await f.upload(svg(GREEN_SQUARE, 'width="0" height="0"'), 'image/svg+xml'), 400, 'qr_logo_unreadable');
    expect((await t.inject({ method: 'GET', url: '/api/qr-logos', headers: f.headers })).statusCode).toBe(200);
  });

  test('a billion laughs (nested entities) and a billion <use>s: 400, quickly', async () => {
    // lol1 is ten lol, lol2 ten lol1… lol9 a billion.
    const lols = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('');
    const laughs = `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY lol "lol">${lols}]>${svg('<text>&lol9;</text>')}`;
    expectError(await f.upload(laughs, 'image/svg+xml'), 400, 'qr_logo_unreadable');
    let uses = '<defs><rect id="a0" width="1" height="1"/>';
    for (let i = 1; i <= 11; i++) uses += `<g id="a${i}">${`<use href="#a${i - 1}"/>`.repeat(10)}</g>`;
    expectError(await f.upload(svg(`${uses}</defs><use href="#a11"/>`), 'image/svg+xml'), 400, 'qr_logo_unreadable');
    // Both answered within the test's limit; how fast is measured by npm run bench timing.
    expect((await f.upload(svg(GREEN_SQUARE), 'image/svg+xml')).statusCode).toBe(201);
  });

  test('not XML at all, or not SVG', async () => {
    expectError(await f.upload('<svg', 'image/svg+xml'), 400, 'qr_logo_unreadable');
    expectError(await f.upload('<html><body>hi</body></html>', 'image/svg+xml'), 400, 'qr_logo_unreadable');
  });
});

describe('how many logos', () => {
  test('a workspace keeps at most 100 (uploads sent 20 at a time all land); the 101st is a 400; deleting one makes room', async () => {
    const own = await qrFixture(t);
    const tiny = pngImage(8, 8, () => [0, 0, 0, 255]);
    for (let batch = 0; batch < 5; batch++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => own.upload(tiny, 'image/png')));
      expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(201));
    }
    const list = (await t.inject({ method: 'GET', url: '/api/qr-logos', headers: own.headers })).json();
    expect(list).toHaveLength(100);
    expect(expectError(await own.upload(tiny, 'image/png'), 400, 'qr_logo_limit').error.en).toContain('100');
    await t.inject({ method: 'DELETE', url: `/api/qr-logos/${list[0].id}`, headers: own.headers });
    expect((await own.upload(tiny, 'image/png')).statusCode).toBe(201);
  });
});

describe('who may use logos', () => {
  test('uploading and deleting need linksWrite, reading linksRead', async () => {
    const readOnly = (await f.w.newKey(['linksRead'])).key;
    const h = { authorization: `Bearer ${readOnly}` };
    const up = await t.inject({ method: 'POST', url: '/api/qr-logos', headers: { ...h, 'content-type': 'image/svg+xml' }, payload: svg(GREEN_SQUARE) });
    expect(up.statusCode).toBe(403);
    expect(up.json().missingScopes).toEqual(['linksWrite']);
    const id = (await f.upload(svg(GREEN_SQUARE), 'image/svg+xml')).json().id;
    expect((await t.inject({ method: 'GET', url: '/api/qr-logos', headers: h })).statusCode).toBe(200);
    expect((await image(id, h)).statusCode).toBe(200);
    expect((await t.inject({ method: 'DELETE', url: `/api/qr-logos/${id}`, headers: h })).statusCode).toBe(403);
    const noLinks = (await f.w.newKey(['tagsRead'])).key;
    expect((await image(id, { authorization: `Bearer ${noLinks}` })).statusCode).toBe(403);
    expect((await t.inject({ method: 'GET', url: `/api/qr-logos/${id}` })).statusCode).toBe(401);
  });

  test('another workspace neither lists, reads, deletes nor uses a logo', async () => {
    const id = (await f.upload(svg(GREEN_SQUARE), 'image/svg+xml')).json().id;
    const other = await qrFixture(t);
    expect((await t.inject({ method: 'GET', url: '/api/qr-logos', headers: other.headers })).json()).toEqual([]);
    expectError(await image(id, other.headers), 404, 'not_found');
    expectError(await t.inject({ method: 'DELETE', url: `/api/qr-logos/${id}`, headers: other.headers }), 404, 'not_found');
    const link = await other.createLinks([{ qrDesign: { logoId: id } }]);
    expect(expectError(link, 400, 'invalid_field').field).toBe('[0].qrDesign.logoId');
    // Still there for its own workspace.
    expect((await image(id)).statusCode).toBe(200);
  });
});
