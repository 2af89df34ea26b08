/**
 * What the QR tests share: a real decoder (jsQR on pixels decoded by pngjs; SVGs drawn by
 * resvg first), small images made with pngjs, and a workspace with a collection to make links in.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import jsQRModule from 'jsqr';
import type { LightMyRequestResponse } from 'fastify';
import { PNG } from 'pngjs';
import { initWasm, Resvg } from '@resvg/resvg-wasm';
import type { TestApp, WorkspaceFixture } from '../../helpers/app.js';

// jsqr is CommonJS with a default export: under NodeNext it arrives as the module object.
const jsQR = ((jsQRModule as unknown as { default?: typeof jsQRModule }).default ?? jsQRModule) as unknown as typeof jsQRModule.default;

export const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
export const ARABIC = /[\u0600-\u06FF]/;

/**
 * The text a PNG's QR code reads as, or undefined. Not inverted: a code a scanner can read is
 * dark on light (the API refuses the inverse).
 */
export function decodePng(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  const pixels = new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.length);
  return jsQR(pixels, image.width, image.height, { inversionAttempts: 'dontInvert' })?.data;
}

let resvgReady: Promise<void> | undefined;
/** An SVG drawn as a PNG `width` pixels wide, by the resvg library itself. */
export async function drawSvg(svg: string, width: number): Promise<Buffer> {
  // The server in this process may have initialised the library already.
  resvgReady ??= initWasm(readFileSync(createRequire(import.meta.url).resolve('@resvg/resvg-wasm/index_bg.wasm'))).catch((e: unknown) => {
    if (!String(e).includes('Already initialized')) throw e;
  });
  await resvgReady;
  return Buffer.from(new Resvg(svg, { fitTo: { mode: 'width', value: width } }).render().asPng());
}

/** A PNG of one colour, or of the colour given per pixel. */
export function pngImage(width: number, height: number, colour: (x: number, y: number) => [number, number, number, number]): Buffer {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) png.data.set(colour(x, y), (y * width + x) * 4);
  }
  return PNG.sync.write(png);
}

/** The pixels of a PNG, as RGBA rows. */
export function pixelsOf(png: Buffer): { width: number; height: number; at(x: number, y: number): [number, number, number, number] } {
  const image = PNG.sync.read(png);
  return {
    width: image.width,
    height: image.height,
    at: (x, y) => [...image.data.subarray((y * image.width + x) * 4, (y * image.width + x) * 4 + 4)] as [number, number, number, number],
  };
}

/** How many pixels of a PNG are close to an RGB colour. */
export function countColour(png: Buffer, [r, g, b]: [number, number, number], tolerance = 40): number {
  const image = PNG.sync.read(png);
  let n = 0;
  for (let i = 0; i < image.data.length; i += 4) {
    if (image.data[i + 3]! > 0 && Math.abs(image.data[i]! - r) + Math.abs(image.data[i + 1]! - g) + Math.abs(image.data[i + 2]! - b) <= tolerance) n++;
  }
  return n;
}

export interface QrFixture {
  w: WorkspaceFixture;
  headers: Record<string, string>;
  collectionId: string;
  /** Uploads a logo as the client would. */
  upload(body: Buffer | string, type: string): Promise<LightMyRequestResponse>;
  /** Creates links; the answer as it came. */
  createLinks(items: object[]): Promise<LightMyRequestResponse>;
  /** GET of an absolute /api URL (a qrCode), as the app answers it. */
  get(url: string): Promise<LightMyRequestResponse>;
}

export async function qrFixture(t: TestApp): Promise<QrFixture> {
  const w = await t.workspace();
  const headers = { authorization: `Bearer ${w.key}` };
  const [collection] = (await t.inject({ method: 'POST', url: '/api/collections', headers, payload: [{ name: 'QR' }] })).json();
  return {
    w,
    headers,
    collectionId: collection.id,
    upload: (body, type) => t.inject({ method: 'POST', url: '/api/qr-logos', headers: { ...headers, 'content-type': type }, payload: body }),
    createLinks: (items) =>
      t.inject({
        method: 'POST',
        url: '/api/links',
        headers,
        payload: items.map((i) => ({ url: 'https://example.com/landing', collectionId: collection.id, ...i })),
      }),
    get: (url) => {
      const u = new URL(url);
      return t.inject({ method: 'GET', url: u.pathname + u.search });
    },
  };
}
