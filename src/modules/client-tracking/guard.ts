import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import { headerTokens, PUBLISHABLE_KEY_PREFIX } from '../../http/auth.js';
import type { RateLimiter } from '../../http/rate-limit.js';
import { sha256 } from '../../core/secret.js';
import { clientIp } from '../redirect/service.js';
import { hostnameAllowed, isWellFormedPublishableKey, originHostname, type KeySite } from '../tracking/service.js';
import type { Memo } from './memo.js';

/** Requests a minute one visitor address may make to the browser-tracking routes. */
export const VISITOR_REQUESTS_PER_MINUTE = 60;

export interface GuardDeps {
  limiter: RateLimiter;
  clock: () => Date;
  trustProxy: boolean;
  /** CLIENT_TRACKING_PER_MINUTE; undefined: ten times the workspace's API figure. */
  perMinute: number | undefined;
  /** The site a key names (tracking's siteByKey), by the key's hash; null: no such key. */
  sites: Memo<KeySite | null>;
  loadSite: (key: string) => Promise<KeySite | undefined>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on the browser-tracking routes: the site the publishable key names. */
    clientSite?: KeySite;
  }
}

/**
 * onRequest hook of the browser-tracking routes (operations.md §19): the publishable key (401),
 * a page of an allowed hostname (403 origin_not_allowed, and the CORS answer headers from here
 * on), the visitor's and then the site's own window (429), never the API's. It runs before the
 * body is read.
 */
export function publishableKeyGuard(d: GuardDeps) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const now = d.clock().getTime();
    const tokens = [...new Set(headerTokens(request))];
    if (tokens.length === 0) throw new AppError('credential_missing');
    if (tokens.length > 1) throw new AppError('credential_conflict');
    const key = tokens[0]!;
    if (!key.startsWith(PUBLISHABLE_KEY_PREFIX) || !isWellFormedPublishableKey(key)) throw new AppError('credential_malformed');
    const site = await d.sites.get(sha256(key).toString('hex'), now, async () => (await d.loadSite(key)) ?? null);
    if (!site) throw new AppError('credential_invalid');
    if (site.expiresAt !== null && site.expiresAt <= now) throw new AppError('credential_expired');
    const origin = request.headers.origin;
    const host = originHostname(origin);
    if (!host || !hostnameAllowed(site.allowedHostnames, host)) throw new AppError('origin_not_allowed');
    void reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
    const ip = clientIp(request.headers, request.socket.remoteAddress, d.trustProxy);
    const limit = d.perMinute ?? site.workspace.rateLimitPerMinute * 10;
    // Both windows at once (one round trip to Redis); the site's is spent even when the visitor's refuses.
    const [visitor, pool] = await Promise.all([
      d.limiter.hit(`ctv:${site.workspace.id}:${ip}`, VISITOR_REQUESTS_PER_MINUTE, now),
      d.limiter.hit(`ct:${site.workspace.id}`, limit, now),
    ]);
    void reply.header('x-ratelimit-limit', pool.limit).header('x-ratelimit-remaining', pool.remaining).header('x-ratelimit-reset', pool.resetAt);
    if (!visitor.allowed) throw new AppError('visitor_rate_limited', { retryAfter: visitor.retryAfter }, { retryAfter: visitor.retryAfter });
    if (!pool.allowed) throw new AppError('rate_limited', { retryAfter: pool.retryAfter }, { retryAfter: pool.retryAfter });
    request.clientSite = site;
  };
}

/** The answer to a preflight: CORS headers only for an origin some workspace allows (a preflight carries no key). */
export function preflight(allows: (hostname: string) => Promise<boolean>) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    const host = originHostname(origin);
    void reply.header('vary', 'Origin').header('cache-control', 'no-store');
    if (host && (await allows(host))) {
      void reply
        .header('access-control-allow-origin', origin)
        .header('access-control-allow-methods', 'POST')
        .header('access-control-allow-headers', 'Authorization, Content-Type')
        .header('access-control-max-age', '600');
    }
    return reply.code(204).send();
  };
}
