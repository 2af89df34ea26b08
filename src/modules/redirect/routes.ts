import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { routesPlugin } from '../../http/types.js';
import { isShortId } from '../links/short-id.js';
import { attributionScript } from './attribution-script.js';
import { registerClaimedHostRoutes } from './claimed-host-routes.js';
import { notFoundPage } from './pages.js';
import { notFoundHandlerWith } from '../../http/errors.js';
import { answerPassword, answerVisit, html, queryOf, selfWithQuery, type RedirectDeps } from './answer.js';

export type { RedirectDeps } from './answer.js';

/** Password form posts: urlencoded, small. */
const PASSWORD_FORM_LIMIT = 4096;

/** The visitor side: short links, their pages and the attribution script (isolated: it parses password forms). */
export const redirectRoutes = routesPlugin<RedirectDeps>('redirect', (app, d) => {
  const prefix = new URL(d.shortLinkBaseUrl).pathname.replace(/\/+$/, '');
  const script = attributionScript(d.clickIdParam);

  app.get('/attribution.js', { schema: { hide: true }, logLevel: 'warn' }, async (req, reply) => {
    void reply.header('etag', script.etag).header('cache-control', 'public, max-age=3600');
    if (req.headers['if-none-match'] === script.etag) return reply.code(304).send();
    return reply.type('application/javascript; charset=utf-8').send(script.body);
  });

  // Password form posts: urlencoded, small.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: PASSWORD_FORM_LIMIT }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  // `/api`, `/admin`… match `/:shortId` too: they keep the JSON not-found body.
  const notFound = notFoundHandlerWith(notFoundPage);
  const findLink = (req: FastifyRequest<{ Params: { shortId: string } }>) => d.cache.get(req.params.shortId);

  const params = Type.Object({ shortId: Type.String() });

  app.get<{ Params: { shortId: string } }>(
    `${prefix}/:shortId`,
    { schema: { hide: true, params }, logLevel: 'warn' },
    async (req, reply) => {
      if (!isShortId(req.params.shortId)) return notFound(req, reply);
      const link = await findLink(req);
      if (!link) return html(reply, 404, notFoundPage());
      return answerVisit(d, req, reply, link, { self: `${prefix}/${link.shortId}`, query: queryOf(req.raw.url), shown: `${d.shortLinkBaseUrl}/${link.shortId}` });
    },
  );

  app.post<{ Params: { shortId: string }; Body: { password?: unknown } }>(
    `${prefix}/:shortId`,
    // The route's own limit, or the server's default for public routes would replace the parser's.
    { bodyLimit: PASSWORD_FORM_LIMIT, schema: { hide: true, params }, logLevel: 'warn' },
    async (req, reply) => {
      if (!isShortId(req.params.shortId)) return notFound(req, reply);
      const link = await findLink(req);
      if (!link) return html(reply, 404, notFoundPage());
      return answerPassword(d, req, reply, link, selfWithQuery(`${prefix}/${link.shortId}`, queryOf(req.raw.url)));
    },
  );

  registerClaimedHostRoutes(app, d);
}, { isolated: true });

