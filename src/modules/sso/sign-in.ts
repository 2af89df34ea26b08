import { randomBytes } from 'node:crypto';
import type { BaseCtx } from '../../core/context.js';
import { emailDomain, emailKey, normalizeEmail } from '../../core/email.js';
import { AppError } from '../../core/errors.js';
import { sameHash, sha256 } from '../../core/secret.js';
import { withTransaction } from '../../core/transaction.js';
import { newId } from '../../db/ids.js';
import { recordSignIn } from '../audit/service.js';
import { createSession } from '../sessions/service.js';
import { addMember, createUser, findUser, findUserByEmail, roleIn } from '../users/service.js';
import { requireWorkspace } from '../workspaces/service.js';
import { authorizationUrl, discover, exchange, ProviderUnavailable, SignInRefused, type RelyingParty } from './oidc.js';
import { callbackUrl, type SsoDeps, type SsoRole } from './service.js';
import * as store from './store.js';

/** A sign-in waits at most 10 minutes for the provider (operations.md §15: short, single use). */
export const PENDING_TTL_MS = 10 * 60_000;

const random = () => randomBytes(32).toString('base64url');

function relyingParty(ctx: BaseCtx, connection: store.ConnectionRow, deps: SsoDeps): RelyingParty {
  return {
    issuer: connection.issuer,
    clientId: connection.clientId,
    clientSecret: deps.sealer.open('oidc-client-secret', connection.clientSecretSealed),
    redirectUri: callbackUrl(deps.baseUrl),
    fetch: deps.fetch,
    // The service's clock decides expiry, as everywhere else.
    clockSkew: Math.round((ctx.now.getTime() - Date.now()) / 1000),
  };
}

async function connectionFor(ctx: BaseCtx, by: { workspaceId?: string; email?: string }): Promise<store.ConnectionRow> {
  if (by.workspaceId) {
    const found = await store.findConnection(ctx.db, by.workspaceId);
    if (found) return found;
  } else if (by.email) {
    const domain = emailDomain(by.email);
    const found = domain ? await store.connectionOfVerifiedDomain(ctx.db, domain) : undefined;
    if (found) return found;
  }
  throw new AppError('sso_unavailable');
}

const down = (err: unknown): never => {
  if (err instanceof ProviderUnavailable) throw new AppError('sso_provider_down', { problem: err.problem });
  throw err;
};

/**
 * What the confirmation page names before a sign-in this service's own pages did not start
 * (routes.ts): the workspace and its provider's host. The provider is not contacted.
 */
export async function describeSsoStart({
  ctx,
  input,
}: {
  ctx: BaseCtx;
  input: { workspaceId?: string; email?: string };
}): Promise<{ workspaceName: string; providerHost: string }> {
  const connection = await connectionFor(ctx, input);
  const workspace = await requireWorkspace({ ctx, input: { id: connection.workspaceId } });
  return { workspaceName: workspace.name, providerHost: new URL(connection.issuer).host };
}

/**
 * Starts the code flow: a pending sign-in (the hashes of a new `state` and of the browser's
 * secret, which goes to the lt_sso cookie) and the provider's authorization URL. With
 * `linkUserId`, the sign-in links the identity to that (signed-in) person instead.
 */
export async function startSsoSignIn({
  ctx,
  input,
  deps,
}: {
  ctx: BaseCtx;
  input: { workspaceId?: string; email?: string; linkUserId?: string };
  deps: SsoDeps;
}): Promise<{ url: string; browserSecret: string }> {
  const connection = await connectionFor(ctx, input);
  const rp = relyingParty(ctx, connection, deps);
  const as = await discover(rp).catch(down);
  const state = random();
  const browserSecret = random();
  const url = await authorizationUrl(as, rp, { state, browserSecret, loginHint: input.email }).catch(down);
  await store.insertPending(ctx.db, {
    stateHash: sha256(state),
    browserHash: sha256(browserSecret),
    connectionId: connection.id,
    linkUserId: input.linkUserId ?? null,
    expiresAt: new Date(ctx.now.getTime() + PENDING_TTL_MS),
  });
  return { url, browserSecret };
}

export interface SsoOutcome {
  userId: string;
  token: string;
  mode: 'signed-in' | 'created' | 'linked';
}

/**
 * The callback: the pending sign-in of `state` (taken, so it works once), bound to this
 * browser; the code exchanged and the ID token checked (oidc.ts); then `email_verified`, the
 * e-mail's domain among the connection's verified ones, and the identity (iss, sub) of this
 * connection: known, it signs its person in; new, it makes a person with that e-mail and the
 * membership — unless someone already has that e-mail, who must link it while signed in.
 */
export async function finishSsoSignIn({
  ctx,
  input,
  deps,
}: {
  ctx: BaseCtx;
  input: { query: URLSearchParams; browserSecret: string | undefined; userAgent?: string; ip?: string };
  deps: SsoDeps;
}): Promise<SsoOutcome> {
  const state = input.query.get('state');
  // Taken first, so even a cancelled or malformed callback uses its sign-in up.
  const pending = state ? await store.takePending(ctx.db, sha256(state)) : undefined;
  checkCallbackShape(input.query);
  if (!state || !pending || pending.expiresAt < ctx.now) throw new AppError('sso_state_invalid');
  if (!input.browserSecret || !sameHash(sha256(input.browserSecret), pending.browserHash)) throw new AppError('sso_state_invalid');
  const connection = await store.findConnectionById(ctx.db, pending.connectionId);
  if (!connection) throw new AppError('sso_unavailable');
  const rp = relyingParty(ctx, connection, deps);
  const as = await discover(rp).catch(down);
  const claims = await exchange(as, rp, { query: input.query, state, browserSecret: input.browserSecret }).catch((err: unknown) => {
    if (err instanceof SignInRefused) throw new AppError('sso_refused', { problem: err.message });
    return down(err);
  });
  if (claims.email_verified !== true || typeof claims.email !== 'string') throw new AppError('sso_email_unverified');
  const domain = emailDomain(claims.email);
  const domains = await store.domainsOf(ctx.db, connection.id);
  if (!domain || !domains.some((d) => d.domain === domain && d.verifiedAt))
    throw new AppError('sso_domain_unverified', { domain: domain ?? claims.email.slice(claims.email.lastIndexOf('@') + 1, 300) });
  // The provider's spelling (`Sam@CORP.test.`) is the account's one form, as at every other entry point.
  const email = normalizeEmail(claims.email);
  if (!email) throw new AppError('sso_email_invalid', { email: claims.email.slice(0, 300) });
  const identity = { connectionId: connection.id, issuer: claims.iss, subject: claims.sub };
  const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 190) : email.slice(0, email.indexOf('@'));
  const { userId, mode } = pending.linkUserId
    ? await link(ctx, connection, identity, pending.linkUserId, email)
    : await signIn(ctx, connection, identity, email, name);
  const { token } = await createSession({ ctx, input: { userId, userAgent: input.userAgent, ip: input.ip, signedInBy: 'sso' } });
  // In the person's security log and each of their workspaces' audit logs, as a password sign-in is.
  await recordSignIn({ ctx, input: { userId, method: 'sso', outcome: 'succeeded', ip: input.ip, userAgent: input.userAgent } });
  return { userId, token, mode };
}

/**
 * The person said no at the provider (RFC 6749 §4.1.2.1 `access_denied`), or the provider sent
 * the browser back with neither a code nor an error: a 400 page, not "provider down".
 */
function checkCallbackShape(query: URLSearchParams): void {
  const error = query.get('error');
  if (error === 'access_denied') throw new AppError('sso_cancelled');
  if (error === null && !query.get('code')) throw new AppError('sso_callback_malformed');
}

type Identity = { connectionId: string; issuer: string; subject: string };

async function signIn(ctx: BaseCtx, connection: store.ConnectionRow, identity: Identity, email: string, name: string) {
  const known = await store.findIdentity(ctx.db, identity.connectionId, identity.issuer, identity.subject);
  if (known) return { userId: known.userId, mode: 'signed-in' as const };
  // Someone has this e-mail already: an identity provider alone never takes over an account.
  if (await findUserByEmail({ ctx, input: { email } })) throw new AppError('sso_link_required');
  try {
    return await withTransaction(ctx.db, async (tx) => {
      const txCtx = { db: tx, now: ctx.now };
      // No password anyone knows: this person signs in through the provider (or sets one by a reset).
      const user = await createUser({ ctx: txCtx, input: { email, name, password: `${random()}Aa1!` } });
      await store.insertIdentity(tx, { id: newId(), ...identity, userId: user.id }, ctx.now);
      await addMember({ ctx: txCtx, input: { workspaceId: connection.workspaceId, userId: user.id, role: connection.role as SsoRole } });
      return { userId: user.id, mode: 'created' as const };
    });
  } catch (err) {
    // The same e-mail signed up (or signed in) at the same moment.
    if (err instanceof AppError && err.code === 'invalid_field') throw new AppError('sso_link_required');
    throw err;
  }
}

async function link(ctx: BaseCtx, connection: store.ConnectionRow, identity: Identity, userId: string, email: string) {
  const user = await findUser({ ctx, input: { id: userId } });
  if (emailKey(user.email) !== email) throw new AppError('sso_link_email_mismatch', { email: user.email });
  const known = await store.findIdentity(ctx.db, identity.connectionId, identity.issuer, identity.subject);
  if (known && known.userId !== userId) throw new AppError('sso_identity_taken');
  await withTransaction(ctx.db, async (tx) => {
    const txCtx = { db: tx, now: ctx.now };
    if (!known) await store.insertIdentity(tx, { id: newId(), ...identity, userId }, ctx.now);
    if (!(await roleIn({ ctx: txCtx, input: { userId, workspaceId: connection.workspaceId } })))
      await addMember({ ctx: txCtx, input: { workspaceId: connection.workspaceId, userId, role: connection.role as SsoRole } });
  });
  return { userId, mode: 'linked' as const };
}
