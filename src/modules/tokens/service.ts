import type { BaseCtx } from '../../core/context.js';
import { isUuid, newId } from '../../db/ids.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import type { Scope } from '../../core/scopes.js';
import { ROLE_SCOPES, type Role } from '../users/service.js';
import { toWorkspace } from '../workspaces/service.js';
import { type Workspace } from '../../core/workspace.js';
import { generateToken, hashToken, isWellFormedToken, sameHash } from './secret.js';
import * as store from './store.js';

const DAY_MS = 24 * 3600_000;
/** operations.md §8: 90 days unless asked otherwise, at most 1 year (365 days). */
export const DEFAULT_TOKEN_TTL_MS = 90 * DAY_MS;
export const MAX_TOKEN_TTL_MS = 365 * DAY_MS;

/** A human token as answers show it: never the token or its hash. */
export interface HumanToken {
  id: string;
  name: string;
  workspaceId: string;
  scopes: Scope[];
  prefix: string;
  expiresAt: Date;
  createdAt: Date;
  lastUsedAt: Date | null;
}

const toHumanToken = (row: store.TokenRow): HumanToken => ({
  id: row.id,
  name: row.name,
  workspaceId: row.workspaceId,
  scopes: row.scopes as Scope[],
  prefix: row.prefix,
  expiresAt: row.expiresAt,
  createdAt: row.createdAt,
  lastUsedAt: row.lastUsedAt,
});

const isRole = (value: string | null | undefined): value is Role => value != null && Object.hasOwn(ROLE_SCOPES, value);

/** A new token of `userId` for one workspace they belong to, with scopes their role has; `token` is shown once. */
export async function createToken({
  ctx: { db, now },
  input,
}: {
  ctx: BaseCtx;
  input: { userId: string; name: string; workspaceId: string; scopes: Scope[]; expiresAt?: Date };
}): Promise<HumanToken & { token: string }> {
  const { userId } = input;
  const role = isUuid(input.workspaceId) ? await store.roleIn(db, input.workspaceId, userId) : undefined;
  if (!isRole(role)) throw invalid('workspaceId', 'not_member');
  const allowed = ROLE_SCOPES[role];
  input.scopes.forEach((scope, i) => {
    if (!allowed.has(scope)) throw invalid(`scopes[${i}]`, 'scope_not_in_role', { role });
  });
  const expiresAt = input.expiresAt ?? new Date(now.getTime() + DEFAULT_TOKEN_TTL_MS);
  // `!(a > b)` rather than `a <= b`: an invalid Date (NaN) is refused too.
  if (!(expiresAt.getTime() > now.getTime())) throw invalid('expiresAt', 'in_past');
  if (expiresAt.getTime() - now.getTime() > MAX_TOKEN_TTL_MS) throw invalid('expiresAt', 'too_far', { limit: '1 year', limitAr: 'سنة واحدة' });

  const { token, hash, prefix } = generateToken();
  const row = await store.insertToken(db, {
    id: newId(),
    userId,
    workspaceId: input.workspaceId,
    name: input.name,
    scopes: [...new Set(input.scopes)],
    prefix,
    tokenHash: hash,
    expiresAt,
    createdAt: now,
  });
  return { ...toHumanToken(row), token };
}

/**
 * The user's tokens that are not revoked, oldest first. Expired ones stay listed with their
 * `expiresAt` (the dashboard marks them) so the user sees why a script stopped working and can
 * delete them. So `ctx.now` decides nothing here.
 */
export async function listTokens({ ctx, input: { userId } }: { ctx: BaseCtx; input: { userId: string } }): Promise<HumanToken[]> {
  return (await store.listTokens(ctx.db, userId)).map(toHumanToken);
}

/** Revokes one of the user's tokens at once, for good; an expired one can be revoked (removed from the list) too. */
export async function revokeToken({ ctx, input: { userId, id } }: { ctx: BaseCtx; input: { userId: string; id: string } }): Promise<void> {
  if (!isUuid(id) || !(await store.revokeToken(ctx.db, userId, id, ctx.now))) throw notFound('token', id);
}

/**
 * Ends the user's tokens for a workspace they leave or are removed from. Authentication already
 * refuses them once the membership is gone; revoking them too keeps them dead if the user is
 * later invited back. Returns how many ended.
 */
export function revokeTokensOf({ ctx, input: { userId, workspaceId } }: { ctx: BaseCtx; input: { userId: string; workspaceId: string } }): Promise<number> {
  return store.revokeTokensOf(ctx.db, userId, workspaceId, ctx.now);
}

export type TokenFound = store.TokenForAuth;

export interface TokenPrincipal {
  kind: 'humanToken';
  tokenId: string;
  userId: string;
  workspace: Workspace;
  role: Role;
  /** The token's scopes that the user's current role still has. */
  scopes: ReadonlySet<Scope>;
}

/**
 * Resolves a presented human token. `lookup` may put a cache in front of the one query (keyed
 * by the hash in hex); whoever caches must drop entries when a token is revoked or a
 * membership changes, since the role read here decides the scopes.
 */
export async function authenticateToken({
  ctx: { db, now },
  input: { token },
  deps: { lookup = (_hashHex: string, load: () => Promise<TokenFound | undefined>) => load() } = {},
}: {
  ctx: BaseCtx;
  input: { token: string };
  deps?: { lookup?: (hashHex: string, load: () => Promise<TokenFound | undefined>) => Promise<TokenFound | undefined> };
}): Promise<TokenPrincipal> {
  if (!isWellFormedToken(token)) throw new AppError('credential_malformed');
  const hash = hashToken(token);
  const found = await lookup(hash.toString('hex'), () => store.findTokenForAuth(db, hash));
  if (!found || !sameHash(found.token.tokenHash, hash)) throw new AppError('credential_invalid');
  const { token: row, workspace, role } = found;
  if (row.revokedAt) throw new AppError('credential_revoked');
  if (row.expiresAt.getTime() <= now.getTime()) throw new AppError('credential_expired');
  // The user left the workspace or was removed: the token ends with the membership.
  if (!isRole(role)) throw new AppError('credential_revoked');
  const allowed = ROLE_SCOPES[role];
  return {
    kind: 'humanToken',
    tokenId: row.id,
    userId: row.userId,
    workspace: toWorkspace(workspace),
    role,
    scopes: new Set((row.scopes as Scope[]).filter((s) => allowed.has(s))),
  };
}

/** Writes a batch of last uses (collected by infra/last-used.ts) in one statement. */
export function recordTokenUses({ ctx, input }: { ctx: Pick<BaseCtx, 'db'>; input: { id: string; at: Date }[] }): Promise<void> {
  return store.touchTokens(ctx.db, input);
}
