import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, notFound } from '../core/errors.js';
import type { RateDecision, RateLimiter } from './rate-limit.js';
import type { Scope } from '../core/scopes.js';

/**
 * The workspace a request acts in. http/ needs only these two fields; the workspaces module
 * widens it to its whole record by declaration merging, so services read plan and limits.
 */
export interface ActingWorkspace {
  id: string;
  rateLimitPerMinute: number;
}

/** Who acts: an API key, a person (by session or human token), or an OAuth app for a person. */
export type Actor =
  | { type: 'key'; keyId: string }
  | { type: 'user'; userId: string; sessionId?: string; tokenId?: string }
  | { type: 'app'; appId: string; userId: string; tokenId: string; grantId: string };

/** Who is calling, in which workspace, with which scopes: resolved once per request from its one credential. */
export interface Principal {
  /** The credential kind's name (apiKey, humanToken, session…). */
  kind: string;
  actor: Actor;
  workspace: ActingWorkspace;
  scopes: ReadonlySet<Scope>;
}

/** Where a credential acts: the workspace and its scopes there. */
export interface WorkspaceAccess {
  workspace: ActingWorkspace;
  scopes: ReadonlySet<Scope>;
  /**
   * The workspace requires two-factor sign-in and the person acting (by session, human token or
   * OAuth app) has none: refused there with 403 `mfa_required`. Their account routes stay open.
   */
  secondFactorMissing?: boolean;
}

/** Whether a person has a second factor now (given by the mfa module, cached until an auth change). */
export type SecondFactorCheck = (userId: string, now: Date) => Promise<boolean>;

/** Whether `userId` lacks the second factor `workspace` requires; asks nothing of workspaces that require none. */
export async function lacksRequiredSecondFactor(workspace: { requireMfa?: boolean }, userId: string, check: SecondFactorCheck, now: Date): Promise<boolean> {
  return Boolean(workspace.requireMfa) && !(await check(userId, now));
}

/** A resolved credential before a workspace is chosen. */
export interface Resolved {
  kind: string;
  actor: Actor;
  /** Credentials bound to one workspace (keys, tokens) carry it with their scopes. */
  bound?: WorkspaceAccess;
  /** A person's session acts in the workspace the request names, as far as their role allows. */
  inWorkspace?(workspaceId: string): Promise<WorkspaceAccess>;
}

/**
 * One way of proving identity. Header kinds (keys, human tokens, later OAuth tokens) claim the
 * tokens of the Authorization / X-API-Key headers they recognise; other kinds (the session
 * cookie) extract their own. Adding a kind touches no route.
 */
export interface CredentialKind {
  name: string;
  /** Whether a header token belongs to this kind. */
  recognises?(token: string): boolean;
  /** Credentials this kind finds elsewhere than those headers (zero, one, or several copies). */
  extract?(request: FastifyRequest): string[];
  resolve(token: string, now: Date, request: FastifyRequest): Promise<Resolved>;
}

/** What the header readers need of a request: Fastify's, or a bare one as `{ raw: req }` (the fast paths). */
export type RawHeaders = { raw: Pick<IncomingMessage, 'rawHeaders'> };

/**
 * Every value of a header as it arrived, one per header line, names compared case-insensitively.
 * `request.headers` cannot tell: Node keeps only the first `Authorization` line and joins
 * repeated `X-API-Key` lines with ", ".
 */
export function rawHeaderValues(request: RawHeaders, name: string): string[] {
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
export function headerTokens(request: RawHeaders): string[] {
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

/** The request's one credential, resolved; 401 for none, several, or one no kind accepts. */
export async function resolveCredential(request: FastifyRequest, kinds: readonly CredentialKind[], now: Date): Promise<Resolved> {
  // The same token in both headers is one credential.
  const presented: { token: string; kind?: CredentialKind }[] = [...new Set(headerTokens(request))].map((token) => ({ token }));
  for (const kind of kinds) for (const token of kind.extract?.(request) ?? []) presented.push({ token, kind });
  if (presented.length === 0) throw new AppError('credential_missing');
  if (presented.length > 1) throw new AppError('credential_conflict');
  const [{ token, kind: extractedBy }] = presented as [{ token: string; kind?: CredentialKind }];
  if (!token) throw new AppError('credential_malformed');
  const kind = extractedBy ?? kinds.find((k) => k.recognises?.(token));
  if (!kind) throw new AppError('credential_malformed');
  return kind.resolve(token, now, request);
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The workspace a credential acts in: its own, or for a session the one `X-Workspace-Id` names. */
export async function principalOf(resolved: Resolved, request: FastifyRequest): Promise<Principal> {
  const access = resolved.bound ?? (await namedWorkspace(resolved, request));
  if (access.secondFactorMissing) throw new AppError('mfa_required');
  return { kind: resolved.kind, actor: resolved.actor, workspace: access.workspace, scopes: access.scopes };
}

async function namedWorkspace(resolved: Resolved, request: FastifyRequest): Promise<WorkspaceAccess> {
  const named = rawHeaderValues(request, 'x-workspace-id');
  if (named.length === 0 || !resolved.inWorkspace) throw new AppError('workspace_required');
  const id = named[0]!.trim();
  // A malformed id names no workspace the person belongs to: the same 401 as a foreign one.
  if (named.length > 1 || !UUID_RE.test(id)) throw new AppError('not_a_member');
  return resolved.inWorkspace(id.toLowerCase());
}

/** Whether the request presents any credential at all (for routes where signing in is optional). */
function carriesCredential(request: FastifyRequest, kinds: readonly CredentialKind[]): boolean {
  return (
    rawHeaderValues(request, 'authorization').length > 0 ||
    rawHeaderValues(request, 'x-api-key').length > 0 ||
    kinds.some((k) => (k.extract?.(request).length ?? 0) > 0)
  );
}

/**
 * The prefix of publishable keys (the browser-tracking routes' own credential): public, so no
 * route but theirs (`config.publishableKey`) takes a request that carries one, not even a route
 * that needs no credential.
 */
export const PUBLISHABLE_KEY_PREFIX = 'lt_pk_';

function presentsPublishableKey(request: FastifyRequest): boolean {
  const { authorization, 'x-api-key': apiKey } = request.headers;
  if (authorization === undefined && apiKey === undefined) return false;
  return [authorization, apiKey].flat().some((v) => typeof v === 'string' && v.includes(PUBLISHABLE_KEY_PREFIX));
}

/** Requests of a person's account routes (no workspace) share one window per person. */
export const ACCOUNT_REQUESTS_PER_MINUTE = 600;

export interface AuthDeps {
  kinds: readonly CredentialKind[];
  limiter: RateLimiter;
  clock: () => Date;
  onAuthenticated?: (principal: Resolved, now: Date) => void;
  /** True when the shared credential epoch moved since this instance last looked (its caches were just emptied). */
  authEpochMoved?: (epoch: string) => boolean;
}

/**
 * onRequest hook: authenticate (401), count against the window (headers on every later
 * answer, 429), then check the scopes (403 naming every one missing). Routes with a `scope` act in a workspace; routes
 * with `account` act for a person: `session` accepts only the session cookie (so no token can
 * mint another), `person` a session or a human token. It runs before the body is parsed, so
 * even a malformed body answers with rate-limit headers.
 */
export function authenticate(deps: AuthDeps) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const { scope, account, publishableKey } = request.routeOptions.config;
    // A publishable key is public (it sits in web pages): a credential for its own routes only, never anywhere else.
    if (!publishableKey && presentsPublishableKey(request)) throw new AppError('publishable_key_elsewhere');
    if (!scope && !account) return;
    const now = deps.clock();
    if (account === 'optional' && !carriesCredential(request, deps.kinds)) return;
    if (account) {
      const person = async () => {
        const resolved = await resolveCredential(request, deps.kinds, now);
        const needsSession = account !== 'person';
        if (resolved.actor.type !== 'user' || (needsSession && !resolved.actor.sessionId))
          throw new AppError(needsSession ? 'session_required' : 'person_required');
        request.person = { userId: resolved.actor.userId, sessionId: resolved.actor.sessionId, tokenId: resolved.actor.tokenId };
        return resolved;
      };
      let resolved = await person();
      const d = await count(deps, reply, `user:${request.person!.userId}`, ACCOUNT_REQUESTS_PER_MINUTE, now);
      // Another instance revoked or changed a credential and this one may not know yet: resolve again, uncached.
      if (d.authEpoch !== undefined && deps.authEpochMoved?.(d.authEpoch)) resolved = await person();
      deps.onAuthenticated?.(resolved, now);
      return;
    }
    const inWorkspace = async () => {
      const resolved = await resolveCredential(request, deps.kinds, now);
      // The workspace id goes into the request's log lines (onResponse, errors) from here on.
      request.principal = await principalOf(resolved, request);
      return resolved;
    };
    let resolved = await inWorkspace();
    const d = await count(deps, reply, request.principal!.workspace.id, request.principal!.workspace.rateLimitPerMinute, now);
    if (d.authEpoch !== undefined && deps.authEpochMoved?.(d.authEpoch)) resolved = await inWorkspace();
    deps.onAuthenticated?.(resolved, now);
    const missing = requiredScopes(scope).filter((s) => !request.principal!.scopes.has(s));
    if (missing.length) throw new AppError('missing_scopes', { scopes: missing.join(', ') }, { missingScopes: missing });
    if (request.routeOptions.config.sessionOnly && request.principal!.kind !== 'session') throw new AppError('session_required');
  };
}

/** The scopes a route's `scope` config requires, all of them: none, one, or a list. */
export function requiredScopes(scope: Scope | readonly Scope[] | undefined): readonly Scope[] {
  if (scope === undefined) return [];
  return typeof scope === 'string' ? [scope] : scope;
}

async function count(deps: AuthDeps, reply: FastifyReply, key: string, limit: number, now: Date): Promise<RateDecision> {
  const d = await deps.limiter.hit(key, limit, now.getTime());
  void reply.header('x-ratelimit-limit', d.limit);
  void reply.header('x-ratelimit-remaining', d.remaining);
  void reply.header('x-ratelimit-reset', d.resetAt);
  if (!d.allowed) throw new AppError('rate_limited', { retryAfter: d.retryAfter }, { retryAfter: d.retryAfter });
  return d;
}

/**
 * A person's role in a workspace, or undefined for a non-member (given by the people module);
 * throws `mfa_required` when the workspace requires a second factor they lack.
 */
export type RoleLookup = (userId: string, workspaceId: string) => Promise<string | undefined>;

/**
 * preHandler hook (after validation, so a malformed id is still a 400): a route declaring
 * `workspaceRole` acts in the workspace of its path's `:id` for the signed-in person. A
 * workspace they do not belong to is a 404 (whether it exists is none of their business);
 * `owner` routes answer any other role 403. The role is left on the request for the handler.
 */
export function authorizeWorkspaceRole(roleOf: RoleLookup) {
  return async (request: FastifyRequest): Promise<void> => {
    const needed = request.routeOptions.config.workspaceRole;
    if (!needed) return;
    const workspaceId = (request.params as { id?: string }).id;
    if (!request.person || workspaceId === undefined) throw new Error(`${request.routeOptions.url} declares workspaceRole without a person or an :id`);
    const role = await roleOf(request.person.userId, workspaceId);
    if (role === undefined) throw notFound('workspace', workspaceId);
    if (needed === 'owner' && role !== 'owner') throw new AppError('owner_required');
    request.workspaceRole = role;
  };
}

/**
 * preHandler of a workspace route that is the owner's (operations.md, rules before §11: "owner
 * means the owner role by session"): a session must be an owner's (403 owner_required); keys and
 * tokens act by the route's scope.
 */
export function ownerBySession(roleOf: RoleLookup) {
  return async (request: FastifyRequest): Promise<void> => {
    const p = request.principal;
    if (p?.kind !== 'session' || p.actor.type !== 'user') return;
    if ((await roleOf(p.actor.userId, p.workspace.id)) !== 'owner') throw new AppError('owner_required');
  };
}

/**
 * preHandler of a money route of the partner program (operations.md §18 Scopes): a person acting
 * by session, human token or OAuth grant must be an owner (403 owner_required); API keys, which
 * owners make, act by the route's scope.
 */
export function ownerForMoney(roleOf: RoleLookup) {
  return async (request: FastifyRequest): Promise<void> => {
    const actor = request.principal?.actor;
    if (!actor || actor.type === 'key') return;
    if ((await roleOf(actor.userId, request.principal!.workspace.id)) !== 'owner') throw new AppError('owner_required');
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
    const given = createHash('sha256')
      .update(m ? m[1]!.trim() : '')
      .digest();
    if (!m || !timingSafeEqual(given, expected)) throw new AppError('admin_unauthorized');
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope an /api route needs in the request's workspace, or a list of scopes it needs all of. */
    scope?: Scope | readonly Scope[];
    /** A person's own route: `session` (the cookie only), `person` (session or human token), `optional` (a session if one is sent). */
    account?: 'session' | 'person' | 'optional';
    /** Routes without scope or account must be marked public (or are unauthenticated by design). */
    public?: boolean;
    /** A person's settings route (with `account`): the role it needs in the workspace of the path's `:id`. */
    workspaceRole?: 'member' | 'owner';
    /**
     * A workspace route (with `scope`) only a signed-in person's session may call: API keys, human
     * tokens and OAuth tokens get 401 session_required (a change a leaked credential must not make).
     */
    sessionOnly?: boolean;
    /** One of the browser-tracking routes: its credential is a publishable key, checked by the route itself (no scope, no API pool). */
    publishableKey?: boolean;
  }
  interface FastifyRequest {
    principal?: Principal;
    /** Set on account routes: the signed-in person. */
    person?: { userId: string; sessionId?: string; tokenId?: string };
    /** Set on routes declaring `workspaceRole`: the person's role in that workspace. */
    workspaceRole?: string;
  }
}
