import QRCode from 'qrcode';
import { invalidQuery } from '../../core/errors.js';
import type { ErrorCorrection } from './design.js';
import { svgToPng } from './resvg.js';

export interface CodeRequest {
  text: string;
  size: number;
  margin: number;
  errorCorrection: ErrorCorrection;
  foreground: string;
  background: string;
  format: 'png' | 'svg';
  logo?: { pngBase64: string };
}

/**
 * How wide the logo's square is, as a share of the code's width (margin excluded): about 5 %
 * of the modules hidden, within the 30 % error correction H recovers, leaving the rest for
 * damage and poor print. (At 0.32 a 170-character text no longer decoded in the decode test.)
 */
const LOGO_SHARE = 0.22;

/**
 * The logo over the middle of the code: a square of whole modules in the background colour (so
 * no module shows half-hidden at its edges), the image inside it half a module in. `n` is the
 * side of the whole image in modules, margins included; the symbol's side is odd, and so is the
 * square's, so it sits exactly in the middle.
 */
function logoMarkup(n: number, margin: number, background: string, pngBase64: string): string {
  const symbol = n - 2 * margin;
  let side = Math.round(symbol * LOGO_SHARE);
  if (side % 2 === 0) side += 1;
  const at = margin + (symbol - side) / 2;
  return (
    `<rect x="${at}" y="${at}" width="${side}" height="${side}" fill="#${background}"/>` +
    `<image x="${at + 0.5}" y="${at + 0.5}" width="${side - 1}" height="${side - 1}" preserveAspectRatio="xMidYMid meet" href="data:image/png;base64,${pngBase64}"/>`
  );
}

/** The code as SVG text: the qrcode library's drawing, with the logo added when there is one. */
async function codeSvg(r: CodeRequest): Promise<string> {
  let svg: string;
  try {
    svg = await QRCode.toString(r.text, {
      type: 'svg',
      errorCorrectionLevel: r.errorCorrection,
      margin: r.margin,
      width: r.size,
      color: { dark: `#${r.foreground}ff`, light: `#${r.background}ff` },
    });
  } catch {
    // Only the text can overflow a QR code (too long for the chosen error correction).
    throw invalidQuery('text', 'max_length', { limit: 'the capacity of a QR code at this error correction' });
  }
  if (!r.logo) return svg;
  // The library draws in modules: its viewBox is `0 0 n n`, n the side with the margins.
  const n = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1]);
  return svg.replace(/<\/svg>\s*$/, `${logoMarkup(n, r.margin, r.background, r.logo.pngBase64)}</svg>`);
}

/** The image GET /api/qr answers: SVG text, or the same drawing as a PNG of `size` pixels. */
export async function renderCode(r: CodeRequest): Promise<{ type: 'image/png' | 'image/svg+xml'; body: string | Buffer }> {
  const svg = await codeSvg(r);
  if (r.format === 'svg') return { type: 'image/svg+xml', body: svg };
  return { type: 'image/png', body: await svgToPng(svg, r.size) };
}
