/**
 * A link's qrDesign through POST and PUT /api/links (operations.md §14): shown complete on the
 * Link record and carried by its qrCode URL; colours a scanner cannot read and a logo without
 * error correction H are 400s naming the field; deleting the logo takes it out of the design.
 * And GET /api/qr itself: the same checks on its query, its sandboxing headers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { ARABIC, pngImage, qrFixture, type QrFixture } from './helpers.js';

let t: TestApp;
let f: QrFixture;
let logoId: string;
beforeAll(async () => {
  t = await startTestApp();
  f = await qrFixture(t);
  logoId = (
    await f.upload(
      pngImage(64, 64, () => [220, 38, 38, 255]),
      'image/png',
    )
  ).json().id;
});
afterAll(() => t.close());

const DEFAULTS = { foreground: '000000', background: 'ffffff', size: 600, margin: 2, errorCorrection: 'M', logoId: null };

interface Link {
  id: string;
  qrCode: string;
  qrDesign: typeof DEFAULTS | { logoId: string };
}

const params = (link: Link) => Object.fromEntries(new URL(link.qrCode).searchParams);

async function create(qrDesign?: object): Promise<Link> {
  const res = await f.createLinks([qrDesign === undefined ? {} : { qrDesign }]);
  expect(res.statusCode, res.body).toBe(201);
  return res.json()[0];
}

async function put(item: object) {
  return t.inject({ method: 'PUT', url: '/api/links', headers: f.headers, payload: [item] });
}

function expect400(res: Awaited<ReturnType<TestApp['inject']>>, field: string, reason: string) {
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json();
  expect(body).toMatchObject({ field, reason });
  expect(body.error.en).toContain(field);
  expect(body.error.ar).toMatch(ARABIC);
  return body;
}

describe('qrDesign on the Link record', () => {
  test('without one: the defaults, and the qrCode URL as before', async () => {
    const link = await create();
    expect(link.qrDesign).toEqual(DEFAULTS);
    expect(params(link)).toMatchObject({ size: '600', errorCorrection: 'M', foreground: '000000', background: 'ffffff', margin: '2', format: 'png' });
    expect(params(link).logoId).toBeUndefined();
  });

  test('given: completed with defaults, colours in lower case, carried by qrCode; GET shows the same', async () => {
    const link = await create({ foreground: '1D4ED8', size: 1024 });
    expect(link.qrDesign).toEqual({ ...DEFAULTS, foreground: '1d4ed8', size: 1024 });
    expect(params(link)).toMatchObject({ foreground: '1d4ed8', size: '1024', background: 'ffffff' });
    const [again] = (await t.inject({ method: 'GET', url: `/api/links?id=${link.id}`, headers: f.headers })).json();
    expect(again.qrDesign).toEqual(link.qrDesign);
    expect(again.qrCode).toBe(link.qrCode);
  });

  test('with a logo: error correction H unless given, the logo id in the qrCode URL', async () => {
    const link = await create({ logoId: logoId.toUpperCase() });
    expect(link.qrDesign).toEqual({ ...DEFAULTS, errorCorrection: 'H', logoId });
    expect(params(link)).toMatchObject({ errorCorrection: 'H', logoId });
    expect((await f.get(link.qrCode)).statusCode).toBe(200);
  });

  test('PUT: omitted keeps, an object replaces the whole design, null goes back to the defaults', async () => {
    const link = await create({ foreground: '1d4ed8', margin: 4 });
    const kept = await put({ id: link.id, title: 'Renamed' });
    expect(kept.json()[0].qrDesign).toEqual(link.qrDesign);
    const replaced = await put({ id: link.id, qrDesign: { background: 'fef3c7', logoId } });
    expect(replaced.json()[0].qrDesign).toEqual({ ...DEFAULTS, background: 'fef3c7', errorCorrection: 'H', logoId });
    const cleared = await put({ id: link.id, qrDesign: null });
    expect(cleared.json()[0].qrDesign).toEqual(DEFAULTS);
    expect(params(cleared.json()[0]).logoId).toBeUndefined();
  });

  test('deleting the logo takes it out of every design (the rest stays)', async () => {
    const own = (
      await f.upload(
        pngImage(64, 64, () => [0, 0, 255, 255]),
        'image/png',
      )
    ).json().id;
    const link = await create({ logoId: own, foreground: '1d4ed8' });
    const del = await t.inject({ method: 'DELETE', url: `/api/qr-logos/${own}`, headers: f.headers });
    expect(del.statusCode, del.body).toBe(200);
    expect(del.json()).toEqual({ deletedIds: [own] });
    const [after] = (await t.inject({ method: 'GET', url: `/api/links?id=${link.id}`, headers: f.headers })).json();
    expect(after.qrDesign).toEqual({ ...DEFAULTS, foreground: '1d4ed8', errorCorrection: 'H', logoId: null });
    expect(params(after).logoId).toBeUndefined();
    // The old URL names a logo that is gone.
    expect((await f.get(link.qrCode)).json()).toMatchObject({ field: 'logoId', reason: 'qr_logo_unknown' });
  });
});

describe('a design a scanner could not read is a 400 naming the field', () => {
  test.each([
    ['orange on white (1.97:1)', { foreground: 'ffa500' }, '[0].qrDesign.foreground', 'qr_contrast'],
    ['light grey on white', { foreground: 'aaaaaa', background: 'ffffff' }, '[0].qrDesign.foreground', 'qr_contrast'],
    ['black on a dark background (only the background given)', { background: '333333' }, '[0].qrDesign.background', 'qr_contrast'],
    ['white on black (inverted)', { foreground: 'ffffff', background: '000000' }, '[0].qrDesign.foreground', 'qr_inverted'],
    ['a logo at error correction M', { logoId: 'LOGO', errorCorrection: 'M' }, '[0].qrDesign.errorCorrection', 'qr_logo_needs_h'],
    ['a logo that does not exist', { logoId: '00000000-0000-4000-8000-000000000000' }, '[0].qrDesign.logoId', 'not_found'],
    ['a size out of range', { size: 5000 }, '[0].qrDesign.size', 'maximum'],
    ['a colour with #', { foreground: '#000000' }, '[0].qrDesign.foreground', 'pattern'],
  ])('%s', async (_name, design, field, reason) => {
    const qrDesign = { ...design, ...('logoId' in design && design.logoId === 'LOGO' ? { logoId } : {}) };
    const body = expect400(await f.createLinks([{ qrDesign }]), field, reason);
    expect(body.error.code).toBe('invalid_field');
    if (reason === 'qr_contrast') expect(body.error.en).toMatch(/contrast of \d\.\d\d:1 .* at least 4\.5:1/);
  });

  test('on update too, naming the item', async () => {
    const [a, b] = (await f.createLinks([{}, {}])).json();
    expect400(
      await t.inject({
        method: 'PUT',
        url: '/api/links',
        headers: f.headers,
        payload: [
          { id: a.id, title: 'ok' },
          { id: b.id, qrDesign: { foreground: 'ffff00' } },
        ],
      }),
      '[1].qrDesign.foreground',
      'qr_contrast',
    );
  });

  test('a create may not send null', async () => {
    expect400(await f.createLinks([{ qrDesign: null }]), '[0].qrDesign', 'not_null');
  });
});

describe('GET /api/qr', () => {
  const CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

  test('answers PNG, SVG and its errors with the sandboxing CSP and nosniff', async () => {
    for (const url of ['/api/qr?text=hello', '/api/qr?text=hello&format=svg', '/api/qr?text=hello&size=1', '/api/qr?text=hello&foreground=ffa500']) {
      const res = await t.inject({ method: 'GET', url });
      expect(res.headers['content-security-policy'], url).toBe(CSP);
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });

  test.each([
    ['contrast', 'text=a&foreground=ffa500', 'foreground', 'qr_contrast'],
    ['inverted', 'text=a&foreground=ffffff&background=000000', 'foreground', 'qr_inverted'],
    ['a logo at error correction L', 'text=a&errorCorrection=L&logoId=LOGO', 'errorCorrection', 'qr_logo_needs_h'],
    ['an unknown logo', 'text=a&logoId=00000000-0000-4000-8000-000000000000', 'logoId', 'qr_logo_unknown'],
    ['a logo id that is no UUID', 'text=a&logoId=..%2Fetc', 'logoId', 'format'],
  ])('%s is a 400 naming the parameter', async (_name, query, field, reason) => {
    const res = await t.inject({ method: 'GET', url: `/api/qr?${query.replace('LOGO', logoId)}` });
    const body = expect400(res, field, reason);
    expect(body.error.code).toBe('invalid_query');
  });

  test('a logo makes error correction H when it is left out, and is drawn into the SVG as PNG data only', async () => {
    const res = await t.inject({ method: 'GET', url: `/api/qr?text=hello&format=svg&logoId=${logoId}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/<image [^>]*href="data:image\/png;base64,[A-Za-z0-9+/=]+"\/>/);
    const explicit = await t.inject({ method: 'GET', url: `/api/qr?text=hello&format=svg&logoId=${logoId}&errorCorrection=H` });
    expect(explicit.body).toBe(res.body);
  });
});
