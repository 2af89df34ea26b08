import type { LibraryStrings } from './strings.js';

/**
 * A tag's colour is any hex #RRGGBB, or none (the API's rule). These are offered by name;
 * any other hex is entered as text. A colour is never shown alone: its name or hex goes with it.
 */
export const PALETTE = [
  ['gray', '#6b7280'],
  ['red', '#dc2626'],
  ['orange', '#ea580c'],
  ['yellow', '#ca8a04'],
  ['green', '#16a34a'],
  ['teal', '#0d9488'],
  ['blue', '#2563eb'],
  ['purple', '#7c3aed'],
  ['pink', '#db2777'],
] as const satisfies readonly (readonly [keyof LibraryStrings['colors'], string])[];

export type PaletteName = (typeof PALETTE)[number][0];

export const HEX = /^#[0-9a-f]{6}$/i;

/** The palette entry of a hex, ignoring case. */
export function paletteOf(hex: string | null): PaletteName | undefined {
  return hex ? PALETTE.find(([, h]) => h === hex.toLowerCase())?.[0] : undefined;
}

/** The words for a colour: its palette name, or its hex, or "No colour". */
export function colorText(s: LibraryStrings, hex: string | null): string {
  if (!hex) return s.noColor;
  const name = paletteOf(hex);
  return name ? s.colors[name] : hex.toLowerCase();
}

/**
 * A square of the colour, drawn as SVG (a fill attribute, not an inline style, so the
 * page's Content-Security-Policy holds). Decorative: the text beside it names the colour.
 */
export function Swatch({ hex }: { hex: string | null }) {
  const valid = hex !== null && HEX.test(hex);
  return (
    <svg class="lib-swatch" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
      <rect x="0.5" y="0.5" width="15" height="15" rx="3" fill={valid ? hex : 'none'} class="lib-swatch-edge" />
      {!valid && <line x1="3" y1="13" x2="13" y2="3" class="lib-swatch-edge" />}
    </svg>
  );
}
