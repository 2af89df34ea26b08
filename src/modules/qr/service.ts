import { auditedChange } from '../../core/audit.js';
import { randomUUID } from 'node:crypto';
import type { BaseCtx, Ctx } from '../../core/context.js';
import { AppError, invalidQuery, notFound } from '../../core/errors.js';
import { colourProblem, LOGO_ERROR_CORRECTION, QR_DEFAULTS, type ErrorCorrection } from './design.js';
import { drawLogo, MAX_ASPECT, type Drawing } from './logo-drawing.js';
import { renderCode } from './render.js';
import { countLogos, deleteLogo, existingLogoIds, insertLogo, listLogoRows, logoForCode, logoImage, type LogoRow } from './store.js';

// What a link's QR design is, for the links module that stores one per link.
export { checkDesign, DEFAULT_DESIGN, qrImageUrl, type DesignInput, type QrDesign } from './design.js';

export type QrLogo = LogoRow;

/** The largest logo upload, in bytes (100 KB). */
export const MAX_LOGO_BYTES = 100 * 1024;
/** How many logos a workspace keeps at most. */
export const MAX_LOGOS = 100;
/** A PNG larger than this on a side is refused before it is decoded (100 KB of PNG can hold gigapixels). */
export const MAX_PNG_SIDE = 4096;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The PNG's size from its header (IHDR, the first chunk), or undefined when it is no PNG. */
function pngSize(png: Buffer): { width: number; height: number } | undefined {
  if (png.length < 24 || !png.subarray(0, 8).equals(PNG_SIGNATURE) || png.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

function shapeError(width: number, height: number): AppError {
  const [w, h] = [width, height].map((v) => Math.round(v * 10) / 10);
  return new AppError('qr_logo_shape', { width: w!, height: h!, size: `${w} × ${h}`, ratio: MAX_ASPECT, side: MAX_PNG_SIDE });
}

/**
 * The uploaded image as an SVG for the drawing: the SVG itself, or the PNG inside one (so a PNG
 * too is decoded in the worker and stored re-encoded, without its metadata chunks).
 */
function asSvg(format: 'png' | 'svg', body: Buffer): string {
  if (format === 'svg') return body.toString('utf8');
  const size = pngSize(body);
  if (!size) throw new AppError('qr_logo_unreadable', { format: 'PNG', detail: 'no PNG signature and header' });
  if (size.width > MAX_PNG_SIDE || size.height > MAX_PNG_SIDE || size.width === 0 || size.height === 0) throw shapeError(size.width, size.height);
  const { width: w, height: h } = size;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><image width="${w}" height="${h}" href="data:image/png;base64,${body.toString('base64')}"/></svg>`;
}

function drawnOrThrow(d: Drawing, format: 'png' | 'svg'): Extract<Drawing, { kind: 'drawn' }> {
  switch (d.kind) {
    case 'drawn':
      return d;
    case 'shape':
      throw shapeError(d.width, d.height);
    case 'blank':
      // resvg skips an image it cannot decode: a damaged PNG draws nothing too.
      throw new AppError(format === 'png' ? 'qr_logo_png_blank' : 'qr_logo_blank');
    case 'too_slow':
      throw new AppError('qr_logo_too_slow', { seconds: 5 });
    case 'unreadable':
      throw new AppError('qr_logo_unreadable', { format: format.toUpperCase(), detail: d.detail.replace(/\.$/, '') });
  }
}

/** `image/png` or `image/svg+xml` (parameters and case ignored), else a 400 naming what came. */
function formatOf(contentType: string | undefined): 'png' | 'svg' {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'image/png') return 'png';
  if (type === 'image/svg+xml') return 'svg';
  throw new AppError('qr_logo_type', { type: type || 'none' });
}

/** Stores a logo: a PNG re-encoded, an SVG drawn into a PNG (the SVG is not kept). */
export async function uploadLogo({ ctx, input }: { ctx: Ctx; input: { contentType: string | undefined; body: Buffer } }): Promise<QrLogo> {
  const format = formatOf(input.contentType);
  if (input.body.length === 0) throw new AppError('empty_body');
  // A bound on storage, not an exact quota: uploads at the same moment may pass it by a few.
  if ((await countLogos(ctx.db, ctx.workspace.id)) >= MAX_LOGOS) throw new AppError('qr_logo_limit', { limit: MAX_LOGOS });
  // An SVG is drawn with its longest side LOGO_BOX px; a PNG is only ever made smaller.
  const drawn = drawnOrThrow(await drawLogo(asSvg(format, input.body), format === 'svg'), format);
  const logo = {
    id: randomUUID(),
    workspaceId: ctx.workspace.id,
    pngBase64: drawn.png.toString('base64'),
    width: drawn.width,
    height: drawn.height,
    source: format,
  };
  return auditedChange(
    ctx,
    (tx) => insertLogo(tx, logo),
    (l) => ({ ids: [l.id] }),
  );
}

export const listLogos = ({ ctx }: { ctx: Ctx }): Promise<QrLogo[]> => listLogoRows(ctx.db, ctx.workspace.id);

export async function logoPng({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<Buffer> {
  const png = await logoImage(ctx.db, ctx.workspace.id, input.id);
  if (png === undefined) throw notFound('logo', input.id);
  return Buffer.from(png, 'base64');
}

/** Deletes a logo; the links whose design used it keep the rest of their design. */
export async function removeLogo({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<void> {
  if (
    !(await auditedChange(
      ctx,
      (tx) => deleteLogo(tx, ctx.workspace.id, input.id),
      () => ({ ids: [input.id] }),
    ))
  )
    throw notFound('logo', input.id);
}

/** The ids among `input` that are logos of the workspace (for the links' designs). */
export const existingLogos = ({ ctx, input }: { ctx: Ctx; input: string[] }): Promise<Set<string>> => existingLogoIds(ctx.db, ctx.workspace.id, input);

export interface CodeQuery {
  text: string;
  size: number;
  /** Left out: H with a logo, else the default. */
  errorCorrection?: ErrorCorrection;
  foreground: string;
  background: string;
  margin: number;
  format: 'png' | 'svg';
  logoId?: string;
}

/** GET /api/qr: checks what a scanner needs (contrast; H with a logo), then draws the code. */
export async function codeImage({ ctx, input: q }: { ctx: BaseCtx; input: CodeQuery }) {
  const problem = colourProblem(q.foreground.toLowerCase(), q.background.toLowerCase());
  if (problem) throw invalidQuery('foreground', problem.reason, problem.params);
  const logo = q.logoId ? await logoForCode(ctx.db, q.logoId) : undefined;
  if (q.logoId && !logo) throw invalidQuery('logoId', 'qr_logo_unknown');
  const errorCorrection = q.errorCorrection ?? (logo ? LOGO_ERROR_CORRECTION : QR_DEFAULTS.errorCorrection);
  if (logo && errorCorrection !== LOGO_ERROR_CORRECTION) throw invalidQuery('errorCorrection', 'qr_logo_needs_h');
  return renderCode({ ...q, foreground: q.foreground.toLowerCase(), background: q.background.toLowerCase(), errorCorrection, logo });
}
