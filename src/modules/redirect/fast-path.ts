import type { IncomingMessage, ServerResponse } from 'node:http';
import { serverErrorPage } from './pages.js';
import type { RedirectDeps } from './answer.js';
import type { RedirectLink } from './resolve.js';
import { aliasPath, isShortId, keyOfPath } from '../links/service.js';
import { clientIp, visitLink } from './visit.js';

/**
 * The hot path, before the web framework: a GET or HEAD of a cached short link that simply
 * forwards is answered here, straight on the socket, with the same decision and the same click
 * as the full route (visitLink). Everything else — uncached links, pages, password forms,
 * expired links, a full click queue — returns false and goes through Fastify's route.
 * Nothing here may throw out of the request listener: that would end the process for every
 * tenant. A failure answers 500 (or drops the connection if the answer had begun) and is logged.
 */
export function fastRedirect(d: RedirectDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const prefix = new URL(d.shortLinkBaseUrl).pathname.replace(/\/+$/, '');
  const fail = (res: ServerResponse, err: unknown, linkId: string | undefined) => {
    d.log.error({ err, linkId }, 'redirect failed');
    if (res.headersSent) return void res.destroy();
    try {
      res.writeHead(500, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(serverErrorPage());
    } catch {
      res.destroy();
    }
  };
  /** Forwards to the link when the visit simply forwards and the click fits the queue; else false. */
  // A/B tests' cookies are Secure when the short links are https (a claimed host always is).
  const secureBase = d.shortLinkBaseUrl.startsWith('https:');
  const serve = (req: IncomingMessage, res: ServerResponse, link: RedirectLink, url: string, end: number, secure: boolean): boolean => {
    if (!d.clicks.hasRoom()) return false;
    const visit = {
      method: req.method!,
      headers: req.headers,
      ip: clientIp(req.headers, req.socket.remoteAddress, d.trustProxy),
      query: end === -1 ? '' : url.slice(end + 1),
      // Only a link under test reads it: no slice for the others.
      path: link.test ? (end === -1 ? url : url.slice(0, end)) : undefined,
      secure,
    };
    const outcome = visitLink(d, link, visit, d.clock().getTime());
    if (outcome.kind !== 'forward' || outcome.cloaked) return false;
    const answer = () => {
      try {
        if (outcome.cookie === undefined) res.writeHead(302, { location: outcome.to, 'cache-control': 'private, no-store', 'content-length': '0' });
        else res.writeHead(302, { location: outcome.to, 'cache-control': 'private, no-store', 'content-length': '0', 'set-cookie': outcome.cookie });
        res.end();
      } catch (err) {
        fail(res, err, link.id);
      }
    };
    d.clicks.redirects++;
    // The answer goes out once the click is in the spool (end of this event-loop turn): a
    // visitor who got a 302 has a click that survives a crash.
    if (outcome.click) d.clicks.record(outcome.click, answer);
    else answer();
    return true;
  };
  return (req, res) => {
    let linkId: string | undefined;
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      const url = req.url ?? '';
      // An active claimed host (operations.md §13) is served by alias; any other Host as before,
      // at the cost of one Map lookup (none while no host is active).
      const claimed = d.hosts.size === 0 ? undefined : d.hosts.get(req.headers.host);
      if (claimed) {
        const end = url.indexOf('?');
        const aliased = d.aliases.peek(claimed.host, aliasPath(end === -1 ? url : url.slice(0, end)));
        if (!aliased) return false;
        linkId = aliased.id;
        return serve(req, res, aliased, url, end, true);
      }
      if (!url.startsWith(prefix + '/')) return false;
      const end = url.indexOf('?');
      const path = url.slice(prefix.length + 1, end === -1 ? undefined : end);
      // A short id first, else a chosen key (operations.md §21): the same order as the route.
      // Only keys the route loaded are in the cache, so a reserved path never hits.
      const byId = isShortId(path) ? d.cache.peek(path) : undefined;
      const key = byId ? undefined : keyOfPath(path);
      const link = byId ?? (key === undefined ? undefined : d.keys.peek(key));
      if (!link) return false;
      linkId = link.id;
      return serve(req, res, link, url, end, secureBase);
    } catch (err) {
      fail(res, err, linkId);
      return true;
    }
  };
}
