import { createHash } from 'node:crypto';
import type { BaseCtx } from '../../core/context.js';
import type { Conn } from '../../db/connect.js';
import { newId } from '../../db/ids.js';
import { AppError } from '../../core/errors.js';
import type { Params, ReasonCode } from '../../i18n/messages.js';
import { sameHash, secretFormat, sha256 } from '../../core/secret.js';
import { SCOPES, type Scope } from '../../core/scopes.js';
import { withTransaction } from '../../core/transaction.js';
import { findClient } from '../oauth-apps/service.js';
import { ROLE_SCOPES, workspacesOf, type Role } from '../users/service.js';
import { toWorkspace } from '../workspaces/service.js';
import { disableWebhooksOfGrants } from '../webhooks/service.js';
import { type Workspace } from '../../core/workspace.js';
import * as store from './store.js';

export const CODE = secretFormat('ltac_');
export const ACCESS = secretFormat('lto_');
export const REFRESH = secretFormat('ltr_');
export const CODE_TTL_MS = 60_000;
export const ACCESS_TTL_MS = 3600_000;
export const REFRESH_TTL_MS = 90 * 24 * 3600_000;

/** Which authorize parameter was wrong and why, in the catalogue's words (the consent API's en/ar 400). */
export interface ParamProblem {
  field: string;
  reason: ReasonCode;
  params?: Params;
}

/** An RFC 6749 error: `error` and `error_description`, 400 unless the client failed to authenticate (401). */
export class OAuthError extends Error {
  constructor(
    readonly error:
      | 'invalid_request'
      | 'invalid_client'
      | 'invalid_grant'
      | 'unauthorized_client'
      | 'unsupported_grant_type'
      | 'invalid_scope'
      | 'access_denied'
      | 'unsupported_response_type',
    readonly description: string,
    readonly status = error === 'invalid_client' ? 401 : 400,
    readonly problem?: ParamProblem,
  ) {
    super(description);
  }
}

/** The client an OAuth request names, as the apps module gives it. */
export interface Client {
  id: string;
  clientId: string;
  name: string;
  confidential: boolean;
  redirectUris: string[];
  scopes: string[];
}

/** Space-separated scopes to a list of the fourteen; unknown names or duplicates are `invalid_scope`. */
export function parseScope(raw: string | undefined, allowed: readonly string[]): Scope[] {
  if (raw === undefined || raw.trim() === '') return allowed.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
  const asked = raw.split(' ').filter(Boolean);
  for (const s of asked) {
    if (!(SCOPES as readonly string[]).includes(s))
      throw new OAuthError('invalid_scope', `unknown scope ${s}`, undefined, { field: 'scope', reason: 'unknown_scope', params: { scope: s } });
    if (!allowed.includes(s))
      throw new OAuthError('invalid_scope', `the app may not ask for ${s}`, undefined, { field: 'scope', reason: 'scope_beyond_app', params: { scope: s } });
  }
  return [...new Set(asked)] as Scope[];
}

/** What /oauth/authorize checks after the client and redirect URI are known (RFC 6749 §4.1.2.1 errors). */
export interface AuthorizeRequest {
  client: Client;
  redirectUri: string;
  state?: string;
  scopes: Scope[];
  codeChallenge: string;
}

const CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;

export function checkAuthorizeParams(client: Client, redirectUri: string, q: Record<string, string | undefined>): AuthorizeRequest {
  if (q.response_type !== 'code')
    throw new OAuthError('unsupported_response_type', 'response_type must be code', undefined, {
      field: 'response_type',
      reason: 'enum',
      params: { values: 'code' },
    });
  if (!q.code_challenge)
    throw new OAuthError('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256', undefined, {
      field: 'code_challenge',
      reason: 'required',
    });
  if (q.code_challenge_method !== 'S256')
    throw new OAuthError('invalid_request', 'code_challenge_method must be S256', undefined, {
      field: 'code_challenge_method',
      reason: 'enum',
      params: { values: 'S256' },
    });
  if (!CHALLENGE_RE.test(q.code_challenge)) {
    throw new OAuthError('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters)', undefined, {
      field: 'code_challenge',
      reason: 'pkce_challenge',
    });
  }
  const scopes = parseScope(q.scope, client.scopes);
  if (scopes.length === 0) throw new OAuthError('invalid_scope', 'no scope requested', undefined, { field: 'scope', reason: 'required' });
  return { client, redirectUri, state: q.state, scopes, codeChallenge: q.code_challenge };
}

/**
 * The app an authorize request names and the redirect URI it asked for, or why the user must
 * not be sent back there (an unknown client, an address it has not registered exactly): then
 * the answer is a page or a 400, never a redirect.
 */
export async function authorizeTarget({
  ctx,
  input: { clientId, redirectUri },
}: {
  ctx: BaseCtx;
  input: { clientId?: string; redirectUri?: string };
}): Promise<{ client: Client; redirectUri: string } | { refused: 'unknown_client' | 'unregistered_redirect_uri' }> {
  const client = clientId ? await findClient({ ctx, input: { clientId } }) : undefined;
  if (!client) return { refused: 'unknown_client' };
  if (!redirectUri || !client.redirectUris.includes(redirectUri)) return { refused: 'unregistered_redirect_uri' };
  return { client, redirectUri };
}

/** Whether a role has every scope asked for (the workspaces a consent may choose from). */
export const roleAllows = (role: Role, scopes: readonly Scope[]): boolean => scopes.every((s) => ROLE_SCOPES[role].has(s));

/** The origin a consent goes back to (the consent form's CSP form-action): only for a known app and a redirect URI it registered. */
export async function consentRedirectOrigin({ ctx, input }: { ctx: BaseCtx; input: { clientId: string; redirectUri: string } }): Promise<string | undefined> {
  const target = await authorizeTarget({ ctx, input });
  return 'refused' in target ? undefined : new URL(target.redirectUri).origin;
}

/** The user's workspaces where their role allows every scope asked: what a consent may choose from. */
export async function eligibleWorkspaces({
  ctx,
  input: { userId, scopes },
}: {
  ctx: BaseCtx;
  input: { userId: string; scopes: readonly Scope[] };
}): Promise<(Workspace & { role: Role })[]> {
  return (await workspacesOf({ ctx, input: { userId } })).filter((w) => roleAllows(w.role, scopes));
}

/** The user allowed: a grant for the chosen workspace and a single-use code valid 60 s. */
export async function issueCode({
  ctx: { db, now },
  input: { request, userId, workspaceId },
}: {
  ctx: BaseCtx;
  input: { request: AuthorizeRequest; userId: string; workspaceId: string };
}): Promise<string> {
  const code = CODE.generate();
  await withTransaction(db, async (tx) => {
    const grant = await store.insertGrant(tx, { id: newId(), appId: request.client.id, userId, workspaceId, scopes: request.scopes, createdAt: now });
    await store.insertCode(tx, {
      codeHash: code.hash,
      grantId: grant.id,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      expiresAt: new Date(now.getTime() + CODE_TTL_MS),
    });
  });
  return code.value;
}

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
  workspace_id: string;
}

/** What a token issued now may do: granted ∩ the app's current scopes ∩ the user's current role (the answer's `scope`). */
function effectiveScopes(grant: store.GrantRow, appScopes: string[], role: string | null): string[] {
  const allowed = role ? ROLE_SCOPES[role as Role] : undefined;
  return grant.scopes.filter((s) => appScopes.includes(s) && allowed?.has(s as Scope));
}

async function issueTokens(db: Conn, grant: store.GrantRow, now: Date, scopes: string[]): Promise<TokenAnswer> {
  const access = ACCESS.generate();
  const refresh = REFRESH.generate();
  await store.insertTokens(db, [
    { id: newId(), grantId: grant.id, kind: 'access', tokenHash: access.hash, expiresAt: new Date(now.getTime() + ACCESS_TTL_MS), createdAt: now },
    { id: newId(), grantId: grant.id, kind: 'refresh', tokenHash: refresh.hash, expiresAt: new Date(now.getTime() + REFRESH_TTL_MS), createdAt: now },
  ]);
  return {
    access_token: access.value,
    token_type: 'Bearer',
    expires_in: ACCESS_TTL_MS / 1000,
    refresh_token: refresh.value,
    scope: scopes.join(' '),
    workspace_id: grant.workspaceId,
  };
}

const VERIFIER_RE = /^[A-Za-z0-9._~-]{43,128}$/;
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/**
 * `authorization_code`: the code is single use — a second presentation revokes everything it
 * issued (the grant) — valid 60 s, bound to its client, redirect URI and PKCE challenge.
 */
export async function exchangeCode({
  ctx: { db, now },
  input: { client, code, redirectUri, verifier },
  deps: { authChanged },
}: {
  ctx: BaseCtx;
  input: { client: Client; code?: string; redirectUri?: string; verifier?: string };
  deps: { authChanged: () => Promise<void> };
}): Promise<TokenAnswer> {
  if (!code || !CODE.isWellFormed(code)) throw new OAuthError('invalid_grant', 'unknown code');
  if (!verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
  const found = await store.findCode(db, sha256(code));
  if (!found || found.appClientId !== client.clientId) throw new OAuthError('invalid_grant', 'unknown code');
  if (found.code.usedAt || !(await store.useCode(db, found.code.codeHash, now))) {
    await endGrant(db, found.grant.id, now);
    await authChanged();
    throw new OAuthError('invalid_grant', 'the code was already used; what it issued is revoked');
  }
  if (found.code.expiresAt.getTime() <= now.getTime()) throw new OAuthError('invalid_grant', 'the code has expired');
  if (found.code.redirectUri !== redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri differs from the authorization request');
  if (!VERIFIER_RE.test(verifier) || !sameHash(Buffer.from(s256(verifier)), Buffer.from(found.code.codeChallenge)))
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
  if (found.grant.revokedAt) throw new OAuthError('invalid_grant', 'the authorization was revoked');
  return issueTokens(db, found.grant, now, effectiveScopes(found.grant, found.appScopes, found.role));
}

/**
 * RFC 6749 §6: a refresh may name `scope`, but nothing beyond what the person granted.
 * Tokens carry their grant's scopes (no per-token narrowing is stored), so a scope within the
 * grant is accepted and the answer's `scope` says what the new token may do.
 */
function checkRefreshScope(raw: string | undefined, granted: readonly string[]): void {
  if (raw === undefined || raw.trim() === '') return;
  for (const s of raw.split(' ').filter(Boolean)) {
    if (!granted.includes(s)) throw new OAuthError('invalid_scope', `the scope ${s} was not granted to this authorization`);
  }
}

/** `refresh_token`: a new pair; the old refresh token is spent, and presenting a spent one again revokes the grant (reuse detection). */
export async function refresh({
  ctx: { db, now },
  input: { client, token, scope },
  deps: { authChanged },
}: {
  ctx: BaseCtx;
  input: { client: Client; token?: string; scope?: string };
  deps: { authChanged: () => Promise<void> };
}): Promise<TokenAnswer> {
  if (!token || !REFRESH.isWellFormed(token)) throw new OAuthError('invalid_grant', 'unknown refresh token');
  const found = await store.findToken(db, sha256(token));
  if (!found || found.token.kind !== 'refresh' || found.appClientId !== client.clientId) throw new OAuthError('invalid_grant', 'unknown refresh token');
  if (found.token.spentAt) {
    await endGrant(db, found.grant.id, now);
    await authChanged();
    throw new OAuthError('invalid_grant', 'the refresh token was already used; the authorization is revoked');
  }
  if (found.token.revokedAt || found.grant.revokedAt || found.appDeletedAt) throw new OAuthError('invalid_grant', 'the authorization was revoked');
  if (found.token.expiresAt.getTime() <= now.getTime()) throw new OAuthError('invalid_grant', 'the refresh token has expired');
  // Checked before the token is spent: a refused refresh leaves the app its refresh token.
  checkRefreshScope(scope, found.grant.scopes);
  // Two presentations at once: the row lock lets one spend it; the other is a reuse like any later one.
  const scopes = effectiveScopes(found.grant, found.appScopes, found.role);
  const issued = await withTransaction(db, async (tx) =>
    (await store.spendRefreshToken(tx, found.token.id, now)) ? issueTokens(tx, found.grant, now, scopes) : undefined,
  );
  if (issued) return issued;
  await endGrant(db, found.grant.id, now);
  await authChanged();
  throw new OAuthError('invalid_grant', 'the refresh token was already used; the authorization is revoked');
}

/** RFC 7009: ends an access token, or a refresh token with its whole grant; unknown tokens are fine. */
export async function revoke({
  ctx: { db, now },
  input: { client, token },
  deps: { authChanged },
}: {
  ctx: BaseCtx;
  input: { client: Client; token?: string };
  deps: { authChanged: () => Promise<void> };
}): Promise<void> {
  if (!token || !(ACCESS.isWellFormed(token) || REFRESH.isWellFormed(token))) return;
  const found = await store.findToken(db, sha256(token));
  if (!found || found.appClientId !== client.clientId) return;
  if (found.token.kind === 'refresh') await endGrant(db, found.grant.id, now);
  else await store.revokeToken(db, found.token.id, now);
  await authChanged();
}

export type AccessFound = NonNullable<Awaited<ReturnType<typeof store.findAccessToken>>>;

/**
 * An access token as a credential: its workspace, the user, and granted scopes ∩ the app's
 * current scopes (an owner may narrow them) ∩ the user's current role.
 */
export async function authenticateAccessToken({
  ctx: { db, now },
  input: { token },
  deps: { lookup = (_key: string, load: () => Promise<AccessFound | undefined>) => load() } = {},
}: {
  ctx: BaseCtx;
  input: { token: string };
  deps?: { lookup?: (hashHex: string, load: () => Promise<AccessFound | undefined>) => Promise<AccessFound | undefined> };
}): Promise<{ tokenId: string; grantId: string; appId: string; userId: string; workspace: Workspace; scopes: ReadonlySet<Scope> }> {
  if (!ACCESS.isWellFormed(token)) throw new AppError('credential_malformed');
  const hash = sha256(token);
  const found = await lookup(hash.toString('hex'), () => store.findAccessToken(db, hash));
  if (!found || !sameHash(found.token.tokenHash, hash)) throw new AppError('credential_invalid');
  if (found.token.revokedAt || found.grant.revokedAt || found.appDeletedAt || !found.role) throw new AppError('credential_revoked');
  if (found.token.expiresAt.getTime() <= now.getTime()) throw new AppError('credential_expired');
  const role = ROLE_SCOPES[found.role as Role];
  return {
    tokenId: found.token.id,
    grantId: found.grant.id,
    appId: found.grant.appId,
    userId: found.grant.userId,
    workspace: toWorkspace(found.workspace),
    scopes: new Set((found.grant.scopes as Scope[]).filter((s) => role?.has(s) && found.appScopes.includes(s))),
  };
}

/** A user left a workspace (or was removed): the consents they gave there end with it. */
export async function endGrantsOf({ ctx, input: { userId, workspaceId } }: { ctx: BaseCtx; input: { userId: string; workspaceId: string } }): Promise<void> {
  const ended = await store.revokeGrantsOf(ctx.db, userId, workspaceId, ctx.now);
  await disableWebhooksOfGrants({ ctx, input: { grantIds: ended } });
}

/** Ends one consent: the grant, its tokens, and the webhook endpoints its app registered (operations.md §11). */
async function endGrant(db: Conn, grantId: string, now: Date): Promise<void> {
  await store.revokeGrant(db, grantId, now);
  await disableWebhooksOfGrants({ ctx: { db, now }, input: { grantIds: [grantId] } });
}
