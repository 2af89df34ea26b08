import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { Workspace } from '../modules/workspaces/service.js';
import type { RateLimiter } from './rate-limit.js';
import type { Scope } from './scopes.js';

/** Who is calling: resolved once per request from its one credential. */
export interface Principal {
  kind: string;
  workspace: Workspace;
  scopes: ReadonlySet<Scope>;
  /** Set for API keys, so their last use can be recorded. */
  keyId?: string;
}

/**
 * One way of proving identity. API keys are the first; human tokens, OAuth access tokens and
 * session cookies join by adding a kind here, without touching any route.
 */
export interface CredentialKind {
  name: string;
  /** Pulls this kind's credentials out of a request (zero, one, or several copies). */
  extract(request: FastifyRequest): string[];
  /** Whether a presented token belongs to this kind. */
  recognises(token: string): boolean;
  resolve(token: string, now: Date): Promise<Principal>;
}

/**
 * Every value of a header as it arrived, one per header line, names compared case-insensitively.
 * `request.headers` cannot tell: Node keeps only the first `Authorization` line and joins
 * repeated `X-API-Key` lines with ", ".
 */
export function rawHeaderValues(request: FastifyRequest, name: string): string[] {
  const raw = request.raw.rawHeaders;
  const values: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) values.push(raw[i + 1]!);
  return values;
}

/**
 * The bearer-style headers: `Authorization: Bearer <t>`, bare `Authorization: <t>`, `X-API-Key: <t>`.
 * A header sent twice (even with the same value) or holding a comma-separated list (what a proxy
 * folding repeated lines forwards; no credential contains a comma) is more than one credential.
 */
export function headerTokens(request: FastifyRequest): string[] {
  const found: string[] = [];
  for (const name of ['authorization', 'x-api-key']) {
    const values = rawHeaderValues(request, name);
    if (values.length > 1 || values.some((v) => v.includes(','))) throw new AppError('credential_conflict');
    const value = values[0];
    if (value === undefined) continue;
    const m = name === 'authorization' ? /^Bearer\s+(.*)$/i.exec(value) : null;
    found.push((m ? m[1]! : value).trim());
  }
  return found;
}

export async function resolvePrincipal(request: FastifyRequest, kinds: CredentialKind[], now: Date): Promise<Principal> {
  const presented = new Set(kinds.flatMap((k) => k.extract(request)));
  if (presented.size === 0) throw new AppError('credential_missing');
  if (presented.size > 1) throw new AppError('credential_conflict');
  const [token] = presented as Set<string>;
  if (!token) throw new AppError('credential_malformed');
  const kind = kinds.find((k) => k.recognises(token));
  if (!kind) throw new AppError('credential_malformed');
  return kind.resolve(token, now);
}

export interface AuthDeps {
  kinds: CredentialKind[];
  limiter: RateLimiter;
  clock: () => Date;
  onAuthenticated?: (principal: Principal, now: Date) => void;
}

/**
 * onRequest hook of every scoped route: authenticate (401), count against the workspace's
 * window (headers on every later answer, 429), then check the scope (403). It runs before the
 * body is parsed, so even a malformed body answers with rate-limit headers.
 */
export function authenticate(deps: AuthDeps) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const scope = request.routeOptions.config.scope;
    if (!scope) return;
    const now = deps.clock();
    const principal = await resolvePrincipal(request, deps.kinds, now);
    // The workspace id goes into the request's log lines (onResponse, errors) from here on.
    request.principal = principal;
    deps.onAuthenticated?.(principal, now);
    const d = await deps.limiter.hit(principal.workspace.id, principal.workspace.rateLimitPerMinute, now.getTime());
    void reply.header('x-ratelimit-limit', d.limit);
    void reply.header('x-ratelimit-remaining', d.remaining);
    void reply.header('x-ratelimit-reset', d.resetAt);
    if (!d.allowed) throw new AppError('rate_limited', { retryAfter: d.retryAfter }, { retryAfter: d.retryAfter });
    if (!principal.scopes.has(scope)) throw new AppError('missing_scopes', { scopes: scope }, { missingScopes: [scope] });
  };
}

/** Constant-time check of the operator token (hashed first so lengths never leak). */
export function adminGuard(adminToken: string) {
  const expected = createHash('sha256').update(adminToken).digest();
  return async (request: FastifyRequest): Promise<void> => {
    const lines = rawHeaderValues(request, 'authorization');
    // Node would read only the first of two Authorization lines: two are refused, as on /api.
    if (lines.length > 1) throw new AppError('credential_conflict');
    const header = lines[0] ?? '';
    const m = /^Bearer\s+(.+)$/i.exec(header);
    const given = createHash('sha256').update(m ? m[1]!.trim() : '').digest();
    if (!m || !timingSafeEqual(given, expected)) throw new AppError('admin_unauthorized');
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope an /api route needs; routes without one must be marked public. */
    scope?: Scope;
    public?: boolean;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}
