import { Type } from '@sinclair/typebox';
import { DateTime, StringEnum, Uuid } from '../../http/schemas.js';
import { ERROR_CORRECTIONS, MIN_CONTRAST, QR_DEFAULTS } from './design.js';
export { ERROR_CORRECTIONS, QR_DEFAULTS } from './design.js';

const Hex = (def: string) => Type.String({ pattern: '^[0-9A-Fa-f]{6}$', default: def, description: 'RRGGBB, no #' });

export const CONTRAST_RULE = `The foreground must be darker than the background, with a WCAG contrast ratio of at least ${MIN_CONTRAST}:1 (else a 400 naming the colour: a scanner could not read the code).`;
export const LOGO_RULE = 'With a logo the error correction is H (H when left out; another level is a 400): the logo hides the middle of the code.';

export const QrQuery = Type.Object({
  text: Type.String({ minLength: 1, maxLength: 2048, description: 'Encoded text, usually a short link' }),
  size: Type.Integer({ minimum: 64, maximum: 2048, default: QR_DEFAULTS.size, description: 'Width in pixels' }),
  errorCorrection: Type.Optional(StringEnum(ERROR_CORRECTIONS, { description: `L, M, Q or H; left out: H with a logo, else ${QR_DEFAULTS.errorCorrection}` })),
  foreground: Hex(QR_DEFAULTS.foreground),
  background: Hex(QR_DEFAULTS.background),
  margin: Type.Integer({ minimum: 0, maximum: 16, default: QR_DEFAULTS.margin, description: 'Quiet zone, in modules' }),
  format: StringEnum(['png', 'svg'] as const, { default: QR_DEFAULTS.format }),
  logoId: Type.Optional({ ...Uuid, description: 'Extension: a logo (POST /api/qr-logos) drawn in the middle of the code' }),
});

export const QrLogo = Type.Object(
  {
    id: { ...Uuid, description: "Random: the public GET /api/qr names it in a link's qrCode URL" },
    width: Type.Integer({ description: 'Of the stored PNG, in pixels' }),
    height: Type.Integer(),
    source: StringEnum(['png', 'svg'] as const, { description: 'What was uploaded; the stored logo is always a PNG' }),
    createdAt: DateTime,
  },
  { $id: 'QrLogo' },
);

export const QrLogoParam = Type.Object({ id: Uuid });
