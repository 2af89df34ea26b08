/**
 * A QR code's design (operations.md §14), as pure functions: its defaults, whether a scanner can
 * read its colours, and the /api/qr URL that carries it.
 */
import { invalid } from '../../core/errors.js';
import type { Params } from '../../i18n/messages.js';

export const ERROR_CORRECTIONS = ['L', 'M', 'Q', 'H'] as const;
export type ErrorCorrection = (typeof ERROR_CORRECTIONS)[number];

/** QR defaults; every parameter is in the URL so the image can be re-rendered anywhere. */
export const QR_DEFAULTS = { size: 600, errorCorrection: 'M', foreground: '000000', background: 'ffffff', margin: 2, format: 'png' } as const;

/** A logo hides the middle of the code: only error correction H (30 % of it recoverable) reads past it. */
export const LOGO_ERROR_CORRECTION: ErrorCorrection = 'H';

export interface QrDesign {
  /** RRGGBB, lower case, no `#`. */
  foreground: string;
  background: string;
  /** Width in pixels. */
  size: number;
  /** Quiet zone, in modules. */
  margin: number;
  errorCorrection: ErrorCorrection;
  logoId: string | null;
}

export const DEFAULT_DESIGN: QrDesign = {
  foreground: QR_DEFAULTS.foreground,
  background: QR_DEFAULTS.background,
  size: QR_DEFAULTS.size,
  margin: QR_DEFAULTS.margin,
  errorCorrection: QR_DEFAULTS.errorCorrection,
  logoId: null,
};

/**
 * The least contrast between modules and background a design may have: WCAG's 4.5:1 (level AA
 * for text), a figure one can cite. A camera in poor light or on glossy print loses contrast
 * first; 4.5:1 still allows brand colours such as a mid blue or a deep red on white (orange or
 * yellow on white fall below it). Black on white is 21:1.
 */
export const MIN_CONTRAST = 4.5;

/** WCAG 2 relative luminance of an RRGGBB colour. */
export function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
}

/** WCAG 2 contrast ratio of two RRGGBB colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

export type ColourProblem = { reason: 'qr_inverted'; params: Params } | { reason: 'qr_contrast'; params: Params };

/**
 * Why a scanner could not read these colours, if it could not: dark modules on a light
 * background (many scanners do not try the inverse), at least MIN_CONTRAST apart.
 */
export function colourProblem(foreground: string, background: string): ColourProblem | undefined {
  const ratio = contrastRatio(foreground, background);
  // Ratios as `4.5:1`, whole, so the Arabic message can keep each one left to right.
  if (ratio < MIN_CONTRAST) return { reason: 'qr_contrast', params: { ratio: `${(Math.floor(ratio * 100) / 100).toFixed(2)}:1`, min: `${MIN_CONTRAST}:1` } };
  if (luminance(foreground) > luminance(background)) return { reason: 'qr_inverted', params: {} };
  return undefined;
}

/** A design as a write gives it: any field may be left out (it takes its default). */
export type DesignInput = Partial<QrDesign>;

/**
 * A written design, complete and checked: colours a scanner can read, error correction H with
 * a logo (H when left out). A bad one is a 400 naming `at(field)`: the colour the write set
 * (the foreground when it set both or neither).
 */
export function checkDesign(input: DesignInput, at: (field: keyof QrDesign) => string): QrDesign {
  const logoId = input.logoId ? input.logoId.toLowerCase() : null;
  const design: QrDesign = {
    foreground: (input.foreground ?? DEFAULT_DESIGN.foreground).toLowerCase(),
    background: (input.background ?? DEFAULT_DESIGN.background).toLowerCase(),
    size: input.size ?? DEFAULT_DESIGN.size,
    margin: input.margin ?? DEFAULT_DESIGN.margin,
    errorCorrection: input.errorCorrection ?? (logoId ? LOGO_ERROR_CORRECTION : DEFAULT_DESIGN.errorCorrection),
    logoId,
  };
  const problem = colourProblem(design.foreground, design.background);
  if (problem)
    throw invalid(at(input.foreground === undefined && input.background !== undefined ? 'background' : 'foreground'), problem.reason, problem.params);
  if (logoId && design.errorCorrection !== LOGO_ERROR_CORRECTION) throw invalid(at('errorCorrection'), 'qr_logo_needs_h');
  return design;
}

/** The /api/qr URL of a code: every parameter of its design, and its logo's id when it has one. */
export function qrImageUrl(baseUrl: string, text: string, design: QrDesign, format: 'png' | 'svg' = QR_DEFAULTS.format): string {
  // Built by hand: every link of a 5,000-link list carries one, and URLSearchParams cost more
  // than the rest of the record. The same bytes as URLSearchParams (test/modules/qr/design-url.test.ts).
  return `${baseUrl}/api/qr?text=${encodedText(text)}${designParams(design, format)}`;
}

// A list's links share the short-link origin and, most of them, one design: each is encoded
// once for a run of links (form encoding works character by character, so parts encode apart).
let lastOrigin = { raw: '', encoded: '' };
let lastDesign: { design: QrDesign; format: string; params: string } | undefined;

function encodedText(text: string): string {
  const cut = text.lastIndexOf('/') + 1;
  if (cut === 0) return formEncode(text);
  const origin = text.slice(0, cut);
  if (origin !== lastOrigin.raw) lastOrigin = { raw: origin, encoded: formEncode(origin) };
  return lastOrigin.encoded + formEncode(text.slice(cut));
}

function designParams(design: QrDesign, format: string): string {
  const last = lastDesign;
  if (last && last.format === format && sameDesign(last.design, design)) return last.params;
  const logo = design.logoId ? `&logoId=${formEncode(design.logoId)}` : '';
  const params =
    `&size=${design.size}&errorCorrection=${formEncode(design.errorCorrection)}` +
    `&foreground=${formEncode(design.foreground)}&background=${formEncode(design.background)}&margin=${design.margin}&format=${format}${logo}`;
  lastDesign = { design: { ...design }, format, params };
  return params;
}

const sameDesign = (a: QrDesign, b: QrDesign): boolean =>
  a.size === b.size &&
  a.margin === b.margin &&
  a.errorCorrection === b.errorCorrection &&
  a.foreground === b.foreground &&
  a.background === b.background &&
  a.logoId === b.logoId;

/** application/x-www-form-urlencoded, as URLSearchParams writes it: space as +, only A–Z a–z 0–9 * - . _ left as they are. */
export function formEncode(value: string): string {
  // Most values (colours, sizes, ids) need nothing; the rest differ from encodeURIComponent in five characters and the space.
  if (FORM_SAFE.test(value)) return value;
  const encoded = encodeURIComponent(value.isWellFormed() ? value : value.toWellFormed());
  return FORM_DIFFERS.test(value) ? encoded.replace(/[!'()~]|%20/g, (c) => (c === '%20' ? '+' : `%${c.charCodeAt(0).toString(16).toUpperCase()}`)) : encoded;
}
const FORM_SAFE = /^[A-Za-z0-9*\-._]*$/;
const FORM_DIFFERS = /[!'()~ ]/;
