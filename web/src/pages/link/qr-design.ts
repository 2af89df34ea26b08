/**
 * The QR designer's rules on the page (operations.md §14), as the server keeps them: the
 * defaults, the contrast a scanner needs (so the page says so before it asks), and the /api/qr
 * URL of a design.
 */
import type { components } from '../../api/schema.js';

export type Design = components['schemas']['Link']['qrDesign'];
export type ErrorCorrection = Design['errorCorrection'];

export const DEFAULT_DESIGN: Design = { foreground: '000000', background: 'ffffff', size: 600, margin: 2, errorCorrection: 'M', logoId: null };
export const MIN_CONTRAST = 4.5;
export const LOGO_LEVEL: ErrorCorrection = 'H';
export const MAX_LOGO_BYTES = 100 * 1024;

function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
}

export interface Contrast {
  /** WCAG ratio, rounded down to two decimals. */
  ratio: number;
  problem?: 'low' | 'inverted';
}

/** The WCAG contrast of the two colours, and why a scanner could not read them, if it could not. */
export function contrastOf(foreground: string, background: string): Contrast {
  const [f, b] = [luminance(foreground), luminance(background)];
  const ratio = Math.floor(((Math.max(f, b) + 0.05) / (Math.min(f, b) + 0.05)) * 100) / 100;
  if (ratio < MIN_CONTRAST) return { ratio, problem: 'low' };
  return f > b ? { ratio, problem: 'inverted' } : { ratio };
}

/** `#rrggbb` for a colour input, from the API's `rrggbb`. */
export const toInput = (hex: string): string => `#${hex.toLowerCase()}`;
export const fromInput = (value: string): string => value.replace(/^#/, '').toLowerCase();

/** The design as a write sends it (a logo implies H). */
export function designBody(d: Design): Design {
  return d.logoId ? { ...d, errorCorrection: LOGO_LEVEL } : d;
}

/** The path and query of the code of `qrCode`'s text drawn with design `d`, in `format`, `size` pixels wide. */
export function codeUrl(qrCode: string, d: Design, format: 'png' | 'svg', size = d.size): string {
  const url = new URL(qrCode);
  const body = designBody(d);
  const set = {
    size: String(size),
    errorCorrection: body.errorCorrection,
    foreground: body.foreground,
    background: body.background,
    margin: String(body.margin),
    format,
  };
  for (const [k, v] of Object.entries(set)) url.searchParams.set(k, v);
  if (body.logoId) url.searchParams.set('logoId', body.logoId);
  else url.searchParams.delete('logoId');
  return url.pathname + url.search;
}

const KEYS = ['foreground', 'background', 'size', 'margin', 'errorCorrection', 'logoId'] as const;
export const sameDesign = (a: Design, b: Design): boolean => KEYS.every((k) => designBody(a)[k] === designBody(b)[k]);
