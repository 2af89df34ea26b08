import type { FastifyReply, FastifyRequest } from 'fastify';
import { routesPlugin } from '../../http/types.js';
import { isReservedKey, isShortId, keyOfPath } from '../links/service.js';
import { attributionScript } from './attribution-script.js';
import { registerClaimedHostRoutes } from './claimed-host-routes.js';
import { notFoundPage } from './pages.js';
import { closeIfBodyPending, notFoundHandlerWith } from '../../http/errors.js';
import { answerPassword, answerVisit, html, queryOf, selfWithQuery, type RedirectDeps } from './answer.js';

export type { RedirectDeps } from './answer.js';

/** Password form posts: urlencoded, small. */
const PASSWORD_FORM_LIMIT = 4096;

/** The visitor side: short links, their pages and the attribution script (isolated: it parses password forms). */
export const redirectRoutes = routesPlugin<RedirectDeps>(
  'redirect',
  (app, d) => {
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

    // `/api`, `/admin`… match `/:shortId` and `/*` too: they keep the JSON not-found body.
    const notFound = notFoundHandlerWith(notFoundPage);

    /**
     * The link a path under the prefix names: a short id first, else a chosen key (operations.md
     * §21; a key is never an existing short id, and a new short id never an existing key). The
     * path is read from the URL as sent: a key holds nothing that percent-encoding changes.
     */
    const pathOf = (req: FastifyRequest) => {
      const url = req.raw.url ?? '';
      const end = url.indexOf('?');
      return url.slice(prefix.length + 1, end === -1 ? undefined : end);
    };
    const lookup = async (req: FastifyRequest, reply: FastifyReply) => {
      const path = pathOf(req);
      const shortId = path.endsWith('/') ? path.slice(0, -1) : path;
      const byId = isShortId(shortId) ? await d.cache.get(shortId) : null;
      if (byId) return { link: byId, at: byId.shortId };
      const key = keyOfPath(path);
      if (key === undefined || isReservedKey(key)) return isShortId(shortId) ? { done: html(reply, 404, notFoundPage()) } : { done: notFound(req, reply) };
      const byKey = await d.keys.get(key);
      return byKey ? { link: byKey, at: key } : { done: html(reply, 404, notFoundPage()) };
    };

    const onGet = async (req: FastifyRequest, reply: FastifyReply) => {
      const found = await lookup(req, reply);
      if ('done' in found) return found.done;
      return answerVisit(d, req, reply, found.link, {
        self: `${prefix}/${found.at}`,
        query: queryOf(req.raw.url),
        shown: `${d.shortLinkBaseUrl}/${found.at}`,
      });
    };
    const onPost = async (req: FastifyRequest<{ Body: { password?: unknown } }>, reply: FastifyReply) => {
      const found = await lookup(req, reply);
      if ('done' in found) return found.done;
      return answerPassword(d, req, reply, found.link, selfWithQuery(`${prefix}/${found.at}`, queryOf(req.raw.url)));
    };

    /**
     * Several segments reach the catch-all only when no other route matched (an unknown or
     * over-long `/admin/…` path among them): what cannot be a key, or is reserved, is answered as
     * not found before any body is read, as it was before keys.
     */
    const onlyKeys = async (req: FastifyRequest, reply: FastifyReply) => {
      const key = keyOfPath(pathOf(req));
      if (key === undefined || isReservedKey(key)) {
        closeIfBodyPending(req, reply);
        return notFound(req, reply);
      }
    };

    // One segment (a short id, or a key) and several (a key with `/`).
    for (const url of [`${prefix}/:shortId`, `${prefix}/*`]) {
      const onRequest = url.endsWith('*') ? onlyKeys : undefined;
      app.get(url, { schema: { hide: true }, logLevel: 'warn', onRequest }, onGet);
      // The route's own limit, or the server's default for public routes would replace the parser's.
      app.post<{ Body: { password?: unknown } }>(url, { bodyLimit: PASSWORD_FORM_LIMIT, schema: { hide: true }, logLevel: 'warn', onRequest }, onPost);
    }

    registerClaimedHostRoutes(app, d);
  },
  { isolated: true },
);
