/**
 * Draws an uploaded logo (an SVG, or a PNG wrapped in one) into a PNG of our own, in a worker
 * thread: resvg in WebAssembly cannot read files, a panic is an exception there, and the worker
 * is stopped after DRAW_TIMEOUT_MS and thrown away with its memory (an SVG of nested <use>
 * elements takes resvg half a second before it gives up; the server's thread never waits on it).
 */
import { Worker } from 'node:worker_threads';
import { RESVG_LIBRARY, resvgModule } from './resvg.js';

/** The longest side of a stored logo, in pixels (it is drawn at 22 % of the code's width). */
export const LOGO_BOX = 512;
/** A logo at most this many times as wide as high, or high as wide (else it is a sliver in the code). */
export const MAX_ASPECT = 4;
const DRAW_TIMEOUT_MS = 5_000;
/** Drawings at once in this process; more wait their turn (each may take a core for DRAW_TIMEOUT_MS). */
const MAX_DRAWING = 2;
let drawing = 0;
const waiting: (() => void)[] = [];

/** Runs `work` when a slot is free; a finished drawing hands its slot to the next in line. */
async function turn<T>(work: () => Promise<T>): Promise<T> {
  if (drawing < MAX_DRAWING) drawing++;
  else await new Promise<void>((go) => waiting.push(go));
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else drawing--;
  }
}

export type Drawing =
  | { kind: 'drawn'; png: Buffer; width: number; height: number }
  | { kind: 'shape'; width: number; height: number }
  | { kind: 'blank' }
  | { kind: 'unreadable'; detail: string }
  | { kind: 'too_slow' };

// Plain JavaScript run by the worker (CommonJS, given its inputs as workerData): measure, refuse
// a sliver, fit the longest side into the box, draw, and say whether anything was drawn at all.
const WORKER_SOURCE = `
const { parentPort, workerData: d } = require('node:worker_threads');
const { initWasm, Resvg } = require(d.library);
const options = { font: { loadSystemFonts: false } };
initWasm(d.wasm).then(() => {
  const probe = new Resvg(d.svg, options);
  const w = probe.width, h = probe.height;
  if (!(w > 0 && h > 0) || Math.max(w, h) / Math.min(w, h) > d.maxAspect) return parentPort.postMessage({ kind: 'shape', width: w, height: h });
  const longest = d.upscale ? d.box : Math.min(d.box, Math.ceil(Math.max(w, h)));
  const image = new Resvg(d.svg, { ...options, fitTo: w >= h ? { mode: 'width', value: longest } : { mode: 'height', value: longest } }).render();
  const pixels = image.pixels;
  let drawn = false;
  for (let i = 3; i < pixels.length && !drawn; i += 4) drawn = pixels[i] !== 0;
  if (!drawn) return parentPort.postMessage({ kind: 'blank' });
  parentPort.postMessage({ kind: 'drawn', png: image.asPng(), width: image.width, height: image.height });
}).catch((e) => parentPort.postMessage({ kind: 'unreadable', detail: String((e && e.message) || e) }));
`;

/**
 * Draws `svg` with its longest side LOGO_BOX pixels (`upscale`), or at most that (a PNG is not
 * enlarged). Never throws for what the SVG holds: the answer says what became of it.
 */
export function drawLogo(svg: string, upscale: boolean): Promise<Drawing> {
  return turn(() => drawInWorker(svg, upscale));
}

async function drawInWorker(svg: string, upscale: boolean): Promise<Drawing> {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { library: RESVG_LIBRARY, wasm: await resvgModule(), svg, upscale, box: LOGO_BOX, maxAspect: MAX_ASPECT },
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
  });
  try {
    return await new Promise<Drawing>((resolve) => {
      const timer = setTimeout(() => resolve({ kind: 'too_slow' }), DRAW_TIMEOUT_MS);
      const settle = (d: Drawing) => {
        clearTimeout(timer);
        resolve(d);
      };
      worker.once('message', (m: Drawing) => settle(m.kind === 'drawn' ? { ...m, png: Buffer.from(m.png) } : m));
      worker.once('error', (e) => settle({ kind: 'unreadable', detail: e.message }));
      worker.once('exit', () => settle({ kind: 'unreadable', detail: 'the drawing stopped' }));
    });
  } finally {
    await worker.terminate();
  }
}
