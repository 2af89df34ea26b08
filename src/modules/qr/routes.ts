import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { baseContext, serviceContext, type ResourceDeps } from '../../core/context.js';
import { routesPlugin, type App } from '../../http/types.js';
import { addSchemaOnce, DeletedIds, ErrorBody } from '../../http/schemas.js';
import { CONTRAST_RULE, LOGO_RULE, QrLogo, QrLogoParam, QrQuery } from './schemas.js';
import { LOGO_BOX, MAX_ASPECT } from './logo-drawing.js';
import { codeImage, listLogos, logoPng, MAX_LOGO_BYTES, MAX_LOGOS, MAX_PNG_SIDE, removeLogo, uploadLogo } from './service.js';

const tags = ['QR codes'];

/**
 * Images of this origin are looked at directly too (a qrCode URL opened in a tab): whatever one
 * holds, it can run nothing, load nothing, and is never read as another type.
 */
const IMAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";
function sandboxed(_req: FastifyRequest, reply: FastifyReply, done: () => void): void {
  void reply.header('content-security-policy', IMAGE_CSP).header('x-content-type-options', 'nosniff');
  done();
}

const UPLOAD =
  `Extension. The body is the image: \`image/png\` or \`image/svg+xml\`, at most ${MAX_LOGO_BYTES / 1024} KB (413 above). ` +
  `It is drawn into a PNG whose longest side is ${LOGO_BOX} px (an SVG is drawn at that size; a PNG is re-encoded, made smaller if larger, never larger, and may be at most ${MAX_PNG_SIDE} px on a side). ` +
  `The SVG itself is not kept and never served back. In an SVG, scripts, text (convert it to outlines) and references to other files are not drawn; an image that draws nothing, one more than ${MAX_ASPECT} times as wide as high (or high as wide), or one too complex to draw in 5 s is a 400. ` +
  `A workspace keeps at most ${MAX_LOGOS} logos. The answer's id goes into a link's \`qrDesign.logoId\`.`;

const IMAGE_BODY = {
  description: 'The logo, as it is',
  required: true,
  content: { 'image/png': { schema: { description: 'A PNG image' } }, 'image/svg+xml': { schema: { description: 'An SVG image' } } },
};

/** GET /api/qr (public, deterministic) and a workspace's logos. */
export const qrRoutes = routesPlugin<ResourceDeps>('qr', (app, deps) => {
  addSchemaOnce(app, QrLogo);
  const ctx = (req: Parameters<typeof serviceContext>[1]) => serviceContext(deps, req);
  const now = baseContext(deps);

  app.get(
    '/api/qr',
    {
      config: { public: true },
      onRequest: sandboxed,
      schema: {
        operationId: 'getQrCode',
        tags,
        summary: 'Render a QR code',
        description: `No key needed. Out-of-range parameters are a 400. ${CONTRAST_RULE} ${LOGO_RULE} Answers with \`Content-Security-Policy: ${IMAGE_CSP}\` and \`X-Content-Type-Options: nosniff\`.`,
        querystring: QrQuery,
        response: {
          200: { description: 'image/png or image/svg+xml', content: { 'image/png': { schema: {} }, 'image/svg+xml': { schema: {} } } },
          304: { description: "Not modified: the If-None-Match named this image's ETag", type: 'null' },
          400: Type.Ref(ErrorBody),
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      // The image is a pure function of its parameters (a logo never changes): the ETag is their digest.
      const etag = `"${createHash('sha256')
        .update(JSON.stringify([q.text, q.size, q.errorCorrection, q.foreground, q.background, q.margin, q.format, q.logoId]))
        .digest('base64url')
        .slice(0, 27)}"`;
      void reply.header('etag', etag).header('cache-control', 'public, max-age=86400, immutable');
      if (req.headers['if-none-match'] === etag) return reply.code(304 as 200).send();
      const image = await codeImage({ ctx: now(req), input: q });
      return reply.type(image.type).send(image.body);
    },
  );

  void app.register(async (uploads) => {
    // Only this route reads an image body: its bytes, whatever the content type (the service names a wrong one).
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_LOGO_BYTES }, (_req, body, done) => done(null, body));
    (uploads as App).post(
      '/api/qr-logos',
      {
        config: { scope: 'linksWrite' },
        bodyLimit: MAX_LOGO_BYTES,
        schema: { operationId: 'createQrLogo', tags, summary: 'Upload a logo', description: UPLOAD, body: IMAGE_BODY, response: { 201: Type.Ref(QrLogo) } },
      },
      async (req, reply) => {
        const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        return reply.status(201).send(await uploadLogo({ ctx: ctx(req), input: { contentType: req.headers['content-type'], body } }));
      },
    );
  });

  app.get(
    '/api/qr-logos',
    {
      config: { scope: 'linksRead' },
      schema: {
        operationId: 'listQrLogos',
        tags,
        summary: 'Logos',
        description: "Extension. The workspace's logos, newest first (all of them).",
        response: { 200: Type.Array(Type.Ref(QrLogo)) },
      },
    },
    async (req) => listLogos({ ctx: ctx(req) }),
  );

  app.get(
    '/api/qr-logos/:id',
    {
      config: { scope: 'linksRead' },
      onRequest: sandboxed,
      schema: {
        operationId: 'getQrLogo',
        tags,
        summary: "A logo's image",
        description: 'Extension. The stored PNG (an uploaded SVG was drawn into one).',
        params: QrLogoParam,
        response: { 200: { description: 'image/png', content: { 'image/png': { schema: {} } } } },
      },
    },
    async (req, reply) =>
      reply
        .type('image/png')
        .header('cache-control', 'private, max-age=86400')
        .send(await logoPng({ ctx: ctx(req), input: { id: req.params.id } })),
  );

  app.delete(
    '/api/qr-logos/:id',
    {
      config: { scope: 'linksWrite' },
      schema: {
        operationId: 'deleteQrLogo',
        tags,
        summary: 'Delete a logo',
        description: 'Extension. Links whose design used it keep the rest of their design, without a logo.',
        params: QrLogoParam,
        response: { 200: DeletedIds },
      },
    },
    async (req) => {
      await removeLogo({ ctx: ctx(req), input: { id: req.params.id } });
      return { deletedIds: [req.params.id] };
    },
  );
});
