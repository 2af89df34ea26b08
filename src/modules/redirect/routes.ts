import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { routesPlugin } from '../../http/types.js';
import type { RateLimiter } from '../../http/rate-limit.js';
import { isShortId } from '../links/short-id.js';
import { attributionScript } from './attribution-script.js';
import type { ClickRecorder } from '../clicks/service.js';
import type { LinkCache } from './link-cache.js';
import { cloakedPage, expiredPage, notFoundPage, passwordPage, previewPage, serverErrorPage } from './pages.js';
import { headerSafe } from './destination.js';
import { notFoundHandlerWith } from '../../http/errors.js';
import { clientIp, visitLink, type VisitDeps } from './visit.js';

export interface RedirectDeps extends VisitDeps {
  shortLinkBaseUrl: string;
  log: { error(o: object, m: string): void };
  trustProxy: boolean;
  cache: LinkCache;
  clicks: ClickRecorder;
  limiter: RateLimiter;
  clock: () => Date;
}

const PASSWORD_ATTEMPTS_PER_MINUTE = 10;

/** The raw query string of a request target, without `?`. */
const queryOf = (url: string | undefined): string => {
  const at = url?.indexOf('?') ?? -1;
  return at === -1 ? '' : url!.slice(at + 1);
};

/** The short link's own path with its query, safe for a Location header and a form action. */
const selfWithQuery = (path: string, query: string): string => (query ? (headerSafe(`${path}?${query}`) ?? path) : path);

const forward = (reply: FastifyReply, to: string) => reply.code(302).header('location', to).header('cache-control', 'private, no-store').send();

const html = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).header('cache-control', 'private, no-store').type('text/html; charset=utf-8').send(body);

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
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_req, body, done) => {
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
      const ip = clientIp(req.headers, req.socket.remoteAddress, d.trustProxy);
      const query = queryOf(req.raw.url);
      const outcome = visitLink(d, link, { method: req.method, headers: req.headers, ip, query }, d.clock().getTime());
      switch (outcome.kind) {
        case 'unusable':
          d.log.error({ linkId: link.id }, 'stored destination cannot be used as a redirect');
          return html(reply, 500, serverErrorPage());
        case 'password':
          // The form posts back with the short link's query, so it reaches the destination after.
          return html(reply, 401, passwordPage(link, selfWithQuery(`${prefix}/${link.shortId}`, query)));
        case 'expired':
          if (outcome.to) return forward(reply, outcome.to);
          return html(reply, 410, expiredPage(link));
        case 'preview':
          return html(reply, 200, previewPage(link, `${d.shortLinkBaseUrl}/${link.shortId}`));
        case 'forward':
          // Waits only when the click queue is full (back-pressure): no click is ever dropped.
          d.clicks.redirects++;
          if (outcome.click) await d.clicks.enqueue(outcome.click);
          if (outcome.cloaked) return html(reply, 200, cloakedPage(link, outcome.to));
          return forward(reply, outcome.to);
      }
    },
  );

  app.post<{ Params: { shortId: string }; Body: { password?: unknown } }>(
    `${prefix}/:shortId`,
    { schema: { hide: true, params }, logLevel: 'warn' },
    async (req, reply) => {
      if (!isShortId(req.params.shortId)) return notFound(req, reply);
      const link = await findLink(req);
      if (!link) return html(reply, 404, notFoundPage());
      const self = selfWithQuery(`${prefix}/${link.shortId}`, queryOf(req.raw.url));
      if (!link.passwordSealed) return reply.code(303).header('location', self).send();
      const ip = clientIp(req.headers, req.socket.remoteAddress, d.trustProxy);
      const attempts = await d.limiter.hit(`pw:${link.id}:${ip}`, PASSWORD_ATTEMPTS_PER_MINUTE, d.clock().getTime());
      if (!attempts.allowed) {
        void reply.header('retry-after', String(attempts.retryAfter));
        return html(reply, 429, passwordPage(link, self, 'too_many'));
      }
      const attempt = typeof req.body?.password === 'string' ? req.body.password : '';
      if (!d.gate.matches(link, attempt)) return html(reply, 401, passwordPage(link, self, 'wrong'));
      return reply.code(303).header('set-cookie', d.gate.cookie(link, self)).header('location', self).send();
    },
  );
}, { isolated: true });
