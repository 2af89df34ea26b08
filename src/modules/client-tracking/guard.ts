import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import { headerTokens, PUBLISHABLE_KEY_PREFIX } from '../../http/auth.js';
import type { RateDecision } from '../../http/rate-limit.js';
import type { ClickGate, GateWindow } from '../../infra/click-gate.js';
import { clientIp } from '../redirect/service.js';
import { hostnameAllowed, isWellFormedPublishableKey, originHostname, type KeySite } from '../tracking/service.js';
import type { Memo } from './memo.js';

/** Requests a minute one visitor address may make to the browser-tracking routes. */
export const VISITOR_REQUESTS_PER_MINUTE = 60;

export interface GuardDeps {
  /** The windows (and, on the fast path, the visitor's mark) in one step. */
  gate: ClickGate;
  clock: () => Date;
  trustProxy: boolean;
  /** CLIENT_TRACKING_PER_MINUTE; undefined: ten times the workspace's API figure. */
  perMinute: number | undefined;
  /** The site a key names (tracking's siteByKey), by the key (public: it is in the site's pages); null: no such key. */
  sites: Memo<KeySite | null>;
  loadSite: (key: string) => Promise<KeySite | undefined>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on the browser-tracking routes: the site the publishable key names. */
    clientSite?: KeySite;
  }
}

/** The site's key works now and the page (`origin`) is on one of its hostnames; else the 401/403 to answer. */
export function refusalOf(site: KeySite | null, origin: string | undefined, now: number): AppError | undefined {
  if (!site) return new AppError('credential_invalid');
  if (site.expiresAt !== null && site.expiresAt <= now) return new AppError('credential_expired');
  if (!originAllowed(site.allowedHostnames, origin)) return new AppError('origin_not_allowed');
  return undefined;
}

/** Remembered verdicts per site's list (a new list each time the site is loaded again) and Origin. */
const verdicts = new WeakMap<readonly string[], Map<string, boolean>>();
/** A site's pages send the same few origins on every click: a list keeps this many verdicts, then starts again. */
const VERDICTS_PER_LIST = 256;

/** Whether the page's origin is on the list (originHostname, hostnameAllowed), remembered: parsing the origin cost 1 % of a click's CPU. */
function originAllowed(allowed: readonly string[], origin: string | undefined): boolean {
  if (origin === undefined) return false;
  let known = verdicts.get(allowed);
  const verdict = known?.get(origin);
  if (verdict !== undefined) return verdict;
  const host = originHostname(origin);
  const admitted = host !== undefined && hostnameAllowed(allowed, host);
  if (!known || known.size >= VERDICTS_PER_LIST) verdicts.set(allowed, (known = new Map()));
  known.set(origin, admitted);
  return admitted;
}

/** The windows a site's request counts in: its visitor's address's, then the site's own. */
export function windowsOf(d: GuardDeps, site: KeySite, ip: string): GateWindow[] {
  return [
    { key: `ctv:${site.workspace.id}:${ip}`, limit: VISITOR_REQUESTS_PER_MINUTE },
    { key: `ct:${site.workspace.id}`, limit: d.perMinute ?? site.workspace.rateLimitPerMinute * 10 },
  ];
}

/** The windows' verdict: `refusal` the 429 to answer, if any, and `headers` the site window's X-RateLimit-*. */
export function judgeWindows([visitor, pool]: readonly RateDecision[]): { refusal?: AppError; headers: Record<string, string> } {
  const headers = { 'x-ratelimit-limit': String(pool!.limit), 'x-ratelimit-remaining': String(pool!.remaining), 'x-ratelimit-reset': String(pool!.resetAt) };
  if (!visitor!.allowed)
    return { headers, refusal: new AppError('visitor_rate_limited', { retryAfter: visitor!.retryAfter }, { retryAfter: visitor!.retryAfter }) };
  if (!pool!.allowed) return { headers, refusal: new AppError('rate_limited', { retryAfter: pool!.retryAfter }, { retryAfter: pool!.retryAfter }) };
  return { headers };
}

/** The visitor's and the site's windows, counted (both at once: one round trip to Redis; the site's is spent even when the visitor's refuses). */
export async function countWindows(d: GuardDeps, site: KeySite, ip: string, now: number): Promise<{ refusal?: AppError; headers: Record<string, string> }> {
  return judgeWindows((await d.gate.admit(windowsOf(d, site, ip), undefined, now)).windows);
}

/**
 * onRequest hook of the browser-tracking routes (operations.md §19): the publishable key (401),
 * a page of an allowed hostname (403 origin_not_allowed, and the CORS answer headers from here
 * on), the visitor's and then the site's own window (429), never the API's. It runs before the
 * body is read. POST /api/track/click's common case is answered before the framework by
 * fast-path.ts, through the same steps.
 */
export function publishableKeyGuard(d: GuardDeps) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const now = d.clock().getTime();
    const tokens = [...new Set(headerTokens(request))];
    if (tokens.length === 0) throw new AppError('credential_missing');
    if (tokens.length > 1) throw new AppError('credential_conflict');
    const key = tokens[0]!;
    if (!key.startsWith(PUBLISHABLE_KEY_PREFIX) || !isWellFormedPublishableKey(key)) throw new AppError('credential_malformed');
    const site = await d.sites.get(key, now, async () => (await d.loadSite(key)) ?? null);
    const origin = request.headers.origin;
    const refused = refusalOf(site, origin, now);
    if (refused) throw refused;
    void reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
    const windows = await countWindows(d, site!, clientIp(request.headers, request.socket.remoteAddress, d.trustProxy), now);
    void reply.headers(windows.headers);
    if (windows.refusal) throw windows.refusal;
    request.clientSite = site!;
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
