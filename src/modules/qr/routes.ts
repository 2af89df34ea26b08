import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import QRCode from 'qrcode';
import { invalidQuery } from '../../core/errors.js';
import { routesPlugin } from '../../http/types.js';
import { ErrorBody, StringEnum } from '../../http/schemas.js';
import { QR_DEFAULTS } from '../links/record.js';

const Hex = (def: string) => Type.String({ pattern: '^[0-9A-Fa-f]{6}$', default: def, description: 'RRGGBB, no #' });

export const QrQuery = Type.Object({
  text: Type.String({ minLength: 1, maxLength: 2048, description: 'Encoded text, usually a short link' }),
  size: Type.Integer({ minimum: 64, maximum: 2048, default: QR_DEFAULTS.size, description: 'Width in pixels' }),
  errorCorrection: StringEnum(['L', 'M', 'Q', 'H'] as const, { default: QR_DEFAULTS.errorCorrection }),
  foreground: Hex(QR_DEFAULTS.foreground),
  background: Hex(QR_DEFAULTS.background),
  margin: Type.Integer({ minimum: 0, maximum: 16, default: QR_DEFAULTS.margin, description: 'Quiet zone, in modules' }),
  format: StringEnum(['png', 'svg'] as const, { default: QR_DEFAULTS.format }),
});

/** GET /api/qr: renders the QR image a link's `qrCode` points at. Public and deterministic. */
export const qrRoutes = routesPlugin('qr', (app) => {
  app.get(
    '/api/qr',
    {
      config: { public: true },
      schema: {
        tags: ['QR codes'],
        summary: 'Render a QR code',
        description: 'No key needed. Out-of-range parameters are a 400.',
        querystring: QrQuery,
        response: {
          200: { description: 'image/png or image/svg+xml', content: { 'image/png': { schema: {} }, 'image/svg+xml': { schema: {} } } },
          400: Type.Ref(ErrorBody),
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      // The image is a pure function of its parameters: the ETag is their digest.
      const etag = `"${createHash('sha256').update(JSON.stringify([q.text, q.size, q.errorCorrection, q.foreground, q.background, q.margin, q.format])).digest('base64url').slice(0, 27)}"`;
      void reply.header('etag', etag).header('cache-control', 'public, max-age=86400, immutable');
      if (req.headers['if-none-match'] === etag) return reply.code(304 as 200).send();
      const options = {
        errorCorrectionLevel: q.errorCorrection,
        margin: q.margin,
        width: q.size,
        color: { dark: `#${q.foreground}ff`, light: `#${q.background}ff` },
      };
      let image: string | Buffer;
      try {
        image = q.format === 'svg' ? await QRCode.toString(q.text, { ...options, type: 'svg' }) : await QRCode.toBuffer(q.text, options);
      } catch {
        // Only the text can overflow a QR code (too long for the chosen error correction).
        throw invalidQuery('text', 'max_length', { limit: 'the capacity of a QR code at this error correction' });
      }
      return reply.type(q.format === 'svg' ? 'image/svg+xml' : 'image/png').send(image);
    },
  );
});
