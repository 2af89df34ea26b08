import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimiter } from '../../http/rate-limit.js';
import type { ClickRecorder } from '../clicks/service.js';
import type { ActiveHosts } from '../domains/service.js';
import type { AliasCache } from './alias-cache.js';
import { headerSafe } from './destination.js';
import type { KeyedLinkCache } from './keyed-link-cache.js';
import type { LinkCache } from './link-cache.js';
import { cloakedPage, expiredPage, passwordPage, previewPage, serverErrorPage } from './pages.js';
import type { RedirectLink } from './resolve.js';
import { clientIp, visitLink, type VisitDeps } from './visit.js';

export interface RedirectDeps extends VisitDeps {
  shortLinkBaseUrl: string;
  log: { error(o: object, m: string): void };
  trustProxy: boolean;
  cache: LinkCache;
  /** Links by chosen key on the short-link host (operations.md §21). */
  keys: KeyedLinkCache;
  /** The server's active claimed hosts (operations.md §13): their requests are served by alias. */
  hosts: ActiveHosts;
  aliases: AliasCache;
  clicks: ClickRecorder;
  limiter: RateLimiter;
  clock: () => Date;
}

const PASSWORD_ATTEMPTS_PER_MINUTE = 10;

/** The raw query string of a request target, without `?`. */
export const queryOf = (url: string | undefined): string => {
  const at = url?.indexOf('?') ?? -1;
  return at === -1 ? '' : url!.slice(at + 1);
};

/** The short link's own path with its query, safe for a Location header and a form action. */
export const selfWithQuery = (path: string, query: string): string => (query ? (headerSafe(`${path}?${query}`) ?? path) : path);

export const forward = (reply: FastifyReply, to: string) => reply.code(302).header('location', to).header('cache-control', 'private, no-store').send();

export const html = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).header('cache-control', 'private, no-store').type('text/html; charset=utf-8').send(body);

/** Where a visit's pages point: the path visitors used (short link or alias), its query, the URL a preview shows. */
export interface VisitAt {
  self: string;
  query: string;
  shown: string;
}

/** The A/B test's cookie of a forward, when it has one. */
const withCookie = (reply: FastifyReply, cookie: string | undefined): FastifyReply => (cookie === undefined ? reply : reply.header('set-cookie', cookie));

/** A GET or HEAD of a link, by its short id or one of its aliases: the same decision and click. */
export async function answerVisit(d: RedirectDeps, req: FastifyRequest, reply: FastifyReply, link: RedirectLink, at: VisitAt) {
  const ip = clientIp(req.headers, req.socket.remoteAddress, d.trustProxy);
  const secure = at.shown.startsWith('https:');
  const outcome = visitLink(d, link, { method: req.method, headers: req.headers, ip, query: at.query, path: at.self, secure }, d.clock().getTime());
  switch (outcome.kind) {
    case 'unusable':
      d.log.error({ linkId: link.id }, 'stored destination cannot be used as a redirect');
      return html(reply, 500, serverErrorPage());
    case 'password':
      // The form posts back with the visit's query, so it reaches the destination after.
      return html(reply, 401, passwordPage(link, selfWithQuery(at.self, at.query)));
    case 'expired':
      if (outcome.to) return forward(reply, outcome.to);
      return html(reply, 410, expiredPage(link));
    case 'preview':
      return html(reply, 200, previewPage(link, at.shown));
    case 'forward':
      // Waits only when the click queue is full (back-pressure): no click is ever dropped.
      d.clicks.redirects++;
      if (outcome.click) await d.clicks.enqueue(outcome.click);
      if (outcome.cloaked) return html(withCookie(reply, outcome.cookie), 200, cloakedPage(link, outcome.to));
      return forward(withCookie(reply, outcome.cookie), outcome.to);
  }
}

/** A password form's post: `self` is the path (with query) the form came from and goes back to. */
export async function answerPassword(
  d: RedirectDeps,
  req: FastifyRequest<{ Body: { password?: unknown } }>,
  reply: FastifyReply,
  link: RedirectLink,
  self: string,
) {
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
}
