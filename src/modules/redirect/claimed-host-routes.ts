import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/types.js';
import { aliasPath } from '../links/service.js';
import { answerPassword, answerVisit, forward, html, queryOf, selfWithQuery, type RedirectDeps } from './answer.js';
import { notFoundPage } from './pages.js';

/**
 * Requests on an active claimed host are routed under this prefix (by the server's URL rewrite,
 * claimedHostRewrite), whatever their path: on such a host every path is an alias, the root or
 * unknown — never the API, the dashboard or a short id. Not a short id (those are 8 base62
 * characters), and on another host the route answers the 404 page.
 */
export const CLAIMED_PREFIX = '/__claimed-host';

/** The server's URL rewrite for claimed hosts: one Map lookup of the Host header, none while no host is active. */
export function claimedHostRewrite(d: Pick<RedirectDeps, 'hosts'>): (req: IncomingMessage) => string | undefined {
  return (req) => (d.hosts.size !== 0 && d.hosts.get(req.headers.host) ? `${CLAIMED_PREFIX}${req.url ?? '/'}` : undefined);
}

/** The path (without query) and query of the URL the visitor asked for. */
function visited(req: FastifyRequest): { path: string; query: string } {
  const url = req.originalUrl;
  const at = url.indexOf('?');
  return { path: at === -1 ? url : url.slice(0, at), query: queryOf(url) };
}

/** GET/HEAD and password posts on claimed hosts (operations.md §13). */
export function registerClaimedHostRoutes(app: App, d: RedirectDeps): void {
  const lookup = async (req: FastifyRequest, reply: FastifyReply) => {
    const claimed = d.hosts.get(req.headers.host);
    // Reached directly on another host, or the host stopped being active since the rewrite.
    if (!claimed) return { done: html(reply, 404, notFoundPage()) };
    const { path, query } = visited(req);
    const alias = aliasPath(path);
    const link = alias === '/' ? null : await d.aliases.get(claimed.host, alias);
    if (link) return { link, path, query, shown: `https://${claimed.host}${alias}` };
    const to = path === '/' ? claimed.rootUrl : claimed.notFoundUrl;
    return { done: to ? forward(reply, to) : html(reply, 404, notFoundPage()) };
  };

  const onGet = async (req: FastifyRequest, reply: FastifyReply) => {
    const found = await lookup(req, reply);
    if ('done' in found) return found.done;
    return answerVisit(d, req, reply, found.link, { self: found.path, query: found.query, shown: found.shown });
  };
  const onPost = async (req: FastifyRequest<{ Body: { password?: unknown } }>, reply: FastifyReply) => {
    const found = await lookup(req, reply);
    if ('done' in found) return found.done;
    return answerPassword(d, req, reply, found.link, selfWithQuery(found.path, found.query));
  };
  // `/` arrives as the bare prefix (the router ignores its trailing slash); every other path under it.
  for (const url of [CLAIMED_PREFIX, `${CLAIMED_PREFIX}/*`]) {
    app.get(url, { schema: { hide: true }, logLevel: 'warn' }, onGet);
    app.post<{ Body: { password?: unknown } }>(url, { schema: { hide: true }, logLevel: 'warn' }, onPost);
  }
}
