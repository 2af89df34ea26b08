import { auditedChange } from '../../core/audit.js';
import type { BaseCtx } from '../../core/context.js';
import { newId } from '../../db/ids.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import type { Resolved } from '../../http/auth.js';
import type { Scope } from '../../core/scopes.js';
import { toWorkspace } from '../workspaces/service.js';
import * as workspaces from '../workspaces/service.js';
import type { CredentialCache } from '../../infra/credential-cache.js';
import { generateKey, hashKey, isWellFormedKey, sameHash } from './secret.js';
import * as store from './store.js';

/** Keys resolved by hash, shared by every request of this instance. */
export type KeyCache = CredentialCache<{ key: store.KeyRow; workspace: store.WorkspaceRow }>;

export interface ApiKey {
  id: string;
  workspaceId: string;
  name: string;
  scopes: Scope[];
  prefix: string;
  expiresAt: Date | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const toApiKey = (row: store.KeyRow): ApiKey => ({
  id: row.id,
  workspaceId: row.workspaceId,
  name: row.name,
  scopes: row.scopes as Scope[],
  prefix: row.prefix,
  expiresAt: row.expiresAt,
  createdAt: row.createdAt,
  lastUsedAt: row.lastUsedAt,
  revokedAt: row.revokedAt,
});

/** A key's expiry as given; PostgreSQL stores years 1 to 9999 (in UTC, after the offset). */
export function keyExpiry(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const expiresAt = new Date(value);
  if (Number.isNaN(expiresAt.getTime()) || expiresAt.getUTCFullYear() < 1 || expiresAt.getUTCFullYear() > 9999)
    throw invalid('expiresAt', 'format', { format: 'date-time' });
  return expiresAt;
}

export async function createKey({
  ctx,
  input,
}: {
  ctx: BaseCtx;
  input: { workspaceId: string; name: string; scopes: Scope[]; expiresAt?: Date };
}): Promise<ApiKey & { key: string }> {
  await workspaces.requireWorkspace({ ctx, input: { id: input.workspaceId } });
  const { key, hash, prefix } = generateKey();
  const row = await auditedChange(
    ctx,
    (tx) =>
      store.insertKey(tx, {
        id: newId(),
        workspaceId: input.workspaceId,
        name: input.name,
        scopes: [...new Set(input.scopes)],
        prefix,
        keyHash: hash,
        expiresAt: input.expiresAt ?? null,
      }),
    (k) => ({ ids: [k.id] }),
  );
  return { ...toApiKey(row), key };
}

export async function listKeys({ ctx, input }: { ctx: BaseCtx; input: { workspaceId: string } }): Promise<ApiKey[]> {
  await workspaces.requireWorkspace({ ctx, input: { id: input.workspaceId } });
  return (await store.listKeys(ctx.db, input.workspaceId)).map(toApiKey);
}

export async function revokeKey({
  ctx,
  input: { id, workspaceId },
  deps,
}: {
  ctx: BaseCtx;
  input: { id: string; workspaceId?: string };
  deps: { authChanged: () => Promise<void> };
}): Promise<void> {
  // The operator's route names no workspace: the key's is the entry's.
  const revoked = await auditedChange(
    ctx,
    (tx) => store.revokeKey(tx, id, ctx.now, workspaceId),
    (k) => ({ ids: [k.id], workspaceId: k.workspaceId }),
  );
  if (!revoked) throw notFound('key', id);
  await deps.authChanged();
}

/**
 * Resolves a presented API key. Always read from the database (one indexed lookup), so a
 * revocation or expiry holds on the very next request on every instance.
 */
export async function authenticateKey({
  ctx: { db, now },
  input: { key },
  deps: { cache } = {},
}: {
  ctx: BaseCtx;
  input: { key: string };
  deps?: { cache?: KeyCache };
}): Promise<Resolved> {
  if (!isWellFormedKey(key)) throw new AppError('credential_malformed');
  const hash = hashKey(key);
  const load = () => store.findKeyByHash(db, hash);
  const found = cache ? await cache.lookup(hash.toString('hex'), load, now.getTime()) : await load();
  if (!found || !sameHash(found.key.keyHash, hash)) throw new AppError('credential_invalid');
  if (found.key.revokedAt) throw new AppError('credential_revoked');
  if (found.key.expiresAt && found.key.expiresAt.getTime() <= now.getTime()) throw new AppError('credential_expired');
  return {
    kind: 'apiKey',
    actor: { type: 'key', keyId: found.key.id },
    bound: { workspace: toWorkspace(found.workspace), scopes: new Set(found.key.scopes as Scope[]) },
  };
}

/** Writes a batch of last uses (collected by infra/last-used.ts) in one statement. */
export function recordKeyUses({ ctx, input }: { ctx: Pick<BaseCtx, 'db'>; input: { id: string; at: Date }[] }): Promise<void> {
  return store.touchKeys(ctx.db, input);
}
