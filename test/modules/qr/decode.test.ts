/**
 * Every code the API makes reads back to its URL through a real QR decoder (jsQR): a link's
 * plain code, a coloured one, the least contrast accepted, and codes with a logo (PNG or SVG
 * uploaded) at error correction H, as PNG and as SVG, at several sizes and margins.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { countColour, decodePng, drawSvg, pngImage, qrFixture, type QrFixture } from './helpers.js';

let t: TestApp;
let f: QrFixture;
beforeAll(async () => {
  t = await startTestApp();
  f = await qrFixture(t);
});
afterAll(() => t.close());

const RED: [number, number, number] = [220, 38, 38];
/** A red disc on a transparent square: what a logo usually is. */
const redDisc = () => pngImage(160, 160, (x, y) => ((x - 80) ** 2 + (y - 80) ** 2 < 75 ** 2 ? [...RED, 255] : [0, 0, 0, 0]));
const SVG_LOGO = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 60"><rect width="100" height="60" rx="8" fill="#dc2626"/><path d="M20 45 L50 10 L80 45 Z" fill="#ffffff"/></svg>`;

interface Link {
  shortUrl: string;
  qrCode: string;
  qrDesign: { logoId: string | null; errorCorrection: string };
}

async function linkWith(qrDesign?: object): Promise<Link> {
  const res = await f.createLinks([qrDesign ? { qrDesign } : {}]);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Link[]>()[0]!;
}

async function pngOf(url: string): Promise<Buffer> {
  const res = await f.get(url);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('image/png');
  return res.rawPayload;
}

function withParams(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

async function logo(body: Buffer | string, type: string): Promise<string> {
  const res = await f.upload(body, type);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

describe("a link's QR code reads back to its URL", () => {
  test('plain: the default design', async () => {
    const link = await linkWith();
    expect(decodePng(await pngOf(link.qrCode))).toBe(`${link.shortUrl}?ltqr=1`);
  });

  test('coloured: blue on cream, as PNG and as SVG', async () => {
    const link = await linkWith({ foreground: '1D4ED8', background: 'fef3c7', size: 400, margin: 3 });
    const png = await pngOf(link.qrCode);
    expect(decodePng(png)).toBe(`${link.shortUrl}?ltqr=1`);
    expect(countColour(png, [0x1d, 0x4e, 0xd8], 6)).toBeGreaterThan(1000);
    const svg = await f.get(withParams(link.qrCode, { format: 'svg' }));
    expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(decodePng(await drawSvg(svg.body, 400))).toBe(`${link.shortUrl}?ltqr=1`);
  });

  test('the least contrast accepted (grey 767676 on white, 4.54:1) still reads', async () => {
    const link = await linkWith({ foreground: '767676' });
    expect(decodePng(await pngOf(link.qrCode))).toBe(`${link.shortUrl}?ltqr=1`);
  });

  test('with a PNG logo, at error correction H: the logo is drawn and the code reads, as PNG and SVG', async () => {
    const logoId = await logo(redDisc(), 'image/png');
    const link = await linkWith({ logoId });
    expect(link.qrDesign).toMatchObject({ logoId, errorCorrection: 'H' });
    const qr = new URL(link.qrCode).searchParams;
    expect(qr.get('logoId')).toBe(logoId);
    expect(qr.get('errorCorrection')).toBe('H');

    const png = await pngOf(link.qrCode);
    // The logo is there (red pixels) and does not keep the code from reading.
    expect(countColour(png, RED)).toBeGreaterThan(2000);
    expect(decodePng(png)).toBe(`${link.shortUrl}?ltqr=1`);
    const svg = (await f.get(withParams(link.qrCode, { format: 'svg' }))).body;
    expect(svg).toContain('data:image/png;base64,');
    expect(decodePng(await drawSvg(svg, 600))).toBe(`${link.shortUrl}?ltqr=1`);
  });

  test('with an SVG logo (drawn into a PNG at upload), coloured, at every size and margin tried', async () => {
    const logoId = await logo(SVG_LOGO, 'image/svg+xml');
    const link = await linkWith({ logoId, foreground: '7c2d12', background: 'fff7ed' });
    for (const size of ['160', '300', '600', '1200']) {
      for (const margin of ['1', '4']) {
        const png = await pngOf(withParams(link.qrCode, { size, margin }));
        expect(decodePng(png), `size ${size}, margin ${margin}`).toBe(`${link.shortUrl}?ltqr=1`);
        expect(countColour(png, RED), `size ${size}: the logo is drawn`).toBeGreaterThan(0);
      }
    }
  });

  test('with a logo, longer texts read too (larger versions of the code)', async () => {
    const logoId = await logo(redDisc(), 'image/png');
    for (const text of ['https://lt.test/a', `https://lt.test/${'x'.repeat(60)}?ltqr=1`, `https://lt.test/${'y'.repeat(150)}?ltqr=1`]) {
      const url = `https://lt.test/api/qr?${new URLSearchParams({ text, logoId, size: '800' })}`;
      expect(decodePng(await pngOf(url)), text).toBe(text);
    }
  });
});
