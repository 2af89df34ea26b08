import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Conn } from '../../db/connect.js';
import { recordLastUse } from '../../db/last-use.js';
import { humanTokens, memberships, workspaces } from '../../db/schema.js';

export type TokenRow = typeof humanTokens.$inferSelect;
export type WorkspaceRow = typeof workspaces.$inferSelect;

/** A token as authentication needs it: its workspace, and its user's role there now (null once they left). */
export interface TokenForAuth {
  token: TokenRow;
  workspace: WorkspaceRow;
  role: string | null;
}

export async function insertToken(conn: Conn, row: typeof humanTokens.$inferInsert): Promise<TokenRow> {
  const [created] = await conn.insert(humanTokens).values(row).returning();
  return created!;
}

/** The user's role in the workspace, or undefined for a non-member. */
export async function roleIn(conn: Conn, workspaceId: string, userId: string): Promise<string | undefined> {
  const [row] = await conn
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
  return row?.role;
}

/** The user's tokens that are not revoked (expired ones included), oldest first. */
export function listTokens(conn: Conn, userId: string): Promise<TokenRow[]> {
  return conn
    .select()
    .from(humanTokens)
    .where(and(eq(humanTokens.userId, userId), isNull(humanTokens.revokedAt)))
    .orderBy(asc(humanTokens.createdAt), asc(humanTokens.seq));
}

/**
 * The token with this hash, its workspace and its user's current role, in one query: the
 * membership is LEFT JOINed so a user who left still finds the token (with role null) and the
 * caller can say "revoked" rather than "unknown".
 */
export async function findTokenForAuth(conn: Conn, tokenHash: Buffer): Promise<TokenForAuth | undefined> {
  const [row] = await conn
    .select({ token: humanTokens, workspace: workspaces, role: memberships.role })
    .from(humanTokens)
    .innerJoin(workspaces, eq(workspaces.id, humanTokens.workspaceId))
    .leftJoin(memberships, and(eq(memberships.workspaceId, humanTokens.workspaceId), eq(memberships.userId, humanTokens.userId)))
    .where(eq(humanTokens.tokenHash, tokenHash));
  return row;
}

/** Revokes one live token of the user; false when there is none (or it is another user's). */
export async function revokeToken(conn: Conn, userId: string, id: string, at: Date): Promise<boolean> {
  const done = await conn
    .update(humanTokens)
    .set({ revokedAt: at })
    .where(and(eq(humanTokens.id, id), eq(humanTokens.userId, userId), isNull(humanTokens.revokedAt)))
    .returning({ id: humanTokens.id });
  return done.length > 0;
}

/** Revokes every live token the user holds for the workspace; returns how many. */
export async function revokeTokensOf(conn: Conn, userId: string, workspaceId: string, at: Date): Promise<number> {
  const done = await conn
    .update(humanTokens)
    .set({ revokedAt: at })
    .where(and(eq(humanTokens.userId, userId), eq(humanTokens.workspaceId, workspaceId), isNull(humanTokens.revokedAt)))
    .returning({ id: humanTokens.id });
  return done.length;
}

/** Records many last-use times in one statement (a later time already recorded is kept). */
export const touchTokens = (conn: Conn, entries: { id: string; at: Date }[]): Promise<void> => recordLastUse(conn, 'human_tokens', entries);
