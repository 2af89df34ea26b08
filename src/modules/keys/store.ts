import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Conn } from '../../db/connect.js';
import { recordLastUse } from '../../db/last-use.js';
import { apiKeys, workspaces } from '../../db/schema.js';

export type KeyRow = typeof apiKeys.$inferSelect;
export type WorkspaceRow = typeof workspaces.$inferSelect;

export async function insertKey(conn: Conn, row: typeof apiKeys.$inferInsert): Promise<KeyRow> {
  const [created] = await conn.insert(apiKeys).values(row).returning();
  return created!;
}

export function listKeys(conn: Conn, workspaceId: string): Promise<KeyRow[]> {
  return conn.select().from(apiKeys).where(eq(apiKeys.workspaceId, workspaceId)).orderBy(asc(apiKeys.createdAt), asc(apiKeys.seq));
}

/** The key with this hash and its workspace, in one indexed lookup. */
export async function findKeyByHash(conn: Conn, keyHash: Buffer): Promise<{ key: KeyRow; workspace: WorkspaceRow } | undefined> {
  const [row] = await conn
    .select({ key: apiKeys, workspace: workspaces })
    .from(apiKeys)
    .innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId))
    .where(eq(apiKeys.keyHash, keyHash));
  return row;
}

/** Revokes a live key (of `workspaceId` when given); the key's id and workspace (an operator's revocation is audited there), or undefined. */
export async function revokeKey(conn: Conn, id: string, at: Date, workspaceId?: string): Promise<{ id: string; workspaceId: string } | undefined> {
  const [done] = await conn
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt), workspaceId ? eq(apiKeys.workspaceId, workspaceId) : undefined))
    .returning({ id: apiKeys.id, workspaceId: apiKeys.workspaceId });
  return done;
}

/** Records many last-use times in one statement (a later time already recorded is kept). */
export const touchKeys = (conn: Conn, entries: { id: string; at: Date }[]): Promise<void> => recordLastUse(conn, 'api_keys', entries);
