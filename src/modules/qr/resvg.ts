/**
 * SVG to PNG through resvg compiled to WebAssembly (`@resvg/resvg-wasm`, MPL-2.0, one 2.5 MB
 * package for every platform, no install script).
 *
 * Why not the native `@resvg/resvg-js` (same renderer, prebuilt binaries from npm, it installs
 * here): tried on hostile SVGs it read files of the server named by an `<image href>`
 * (absolute or relative paths, even through an XML entity), and a panic in its Rust code (a
 * 1 × 100,000,000 px SVG fitted to a width) aborted the whole Node process. Compiled to
 * WebAssembly it has no file system at all, and a panic becomes a catchable RuntimeError.
 * Why not `sharp` (Apache-2.0): installed on linux-x64 it takes 20 MB, 18 MB of it the native
 * libvips (LGPL-3.0) with librsvg, for one conversion.
 *
 * Untrusted SVGs (uploaded logos) are drawn in a worker thread (logo-drawing.ts); this module
 * draws the server's own SVGs (QR codes) on the calling thread.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { initWasm, Resvg } from '@resvg/resvg-wasm';

const require = createRequire(import.meta.url);

/** The CommonJS entry of the library, for worker threads (they `require` it). */
export const RESVG_LIBRARY = require.resolve('@resvg/resvg-wasm');

/** A compiled WebAssembly.Module: Node has the global, the TypeScript libraries of the build do not declare it. */
type CompiledModule = object;
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledModule> } }).WebAssembly;

let compiled: Promise<CompiledModule> | undefined;
let initialised: Promise<void> | undefined;

/** resvg's WebAssembly, compiled once per process and shared with the workers. */
export function resvgModule(): Promise<CompiledModule> {
  compiled ??= readFile(require.resolve('@resvg/resvg-wasm/index_bg.wasm')).then((bytes) => wasm.compile(bytes));
  return compiled;
}

/** The library is initialised once per thread; another user of it in this process may have done it. */
function alreadyInitialised(err: unknown): void {
  if (!String(err).includes('Already initialized')) throw err;
}

/** Draws an SVG of ours at `width` pixels (height in proportion) as a PNG. */
export async function svgToPng(svg: string, width: number): Promise<Buffer> {
  initialised ??= resvgModule().then((m) => initWasm(m as Parameters<typeof initWasm>[0]).catch(alreadyInitialised));
  await initialised;
  // WebAssembly memory is not garbage-collected: each object is freed by hand.
  const drawing = new Resvg(svg, { fitTo: { mode: 'width', value: width }, font: { loadSystemFonts: false } });
  try {
    const image = drawing.render();
    try {
      return Buffer.from(image.asPng());
    } finally {
      image.free();
    }
  } finally {
    drawing.free();
  }
}
