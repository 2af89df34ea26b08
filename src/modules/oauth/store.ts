import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Conn } from '../../db/connect.js';
import { memberships, oauthApps, oauthCodes, oauthGrants, oauthTokens, workspaces } from '../../db/schema.js';

export type GrantRow = typeof oauthGrants.$inferSelect;
export type CodeRow = typeof oauthCodes.$inferSelect;
export type TokenRow = typeof oauthTokens.$inferSelect;

export async function insertGrant(conn: Conn, row: typeof oauthGrants.$inferInsert): Promise<GrantRow> {
  const [created] = await conn.insert(oauthGrants).values(row).returning();
  return created!;
}

export async function insertCode(conn: Conn, row: typeof oauthCodes.$inferInsert): Promise<void> {
  await conn.insert(oauthCodes).values(row);
}

/** The user's current role where the grant acts (null once they left). */
const roleOfGrantUser = and(eq(memberships.workspaceId, oauthGrants.workspaceId), eq(memberships.userId, oauthGrants.userId));

/** The code with its grant, app and the user's current role, whatever their state (the caller decides). */
export async function findCode(conn: Conn, codeHash: Buffer) {
  const [row] = await conn
    .select({ code: oauthCodes, grant: oauthGrants, appClientId: oauthApps.clientId, appScopes: oauthApps.scopes, role: memberships.role })
    .from(oauthCodes)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthCodes.grantId))
    .innerJoin(oauthApps, eq(oauthApps.id, oauthGrants.appId))
    .leftJoin(memberships, roleOfGrantUser)
    .where(eq(oauthCodes.codeHash, codeHash));
  return row;
}

/** Marks a code used; false when it already was (the single use is decided here, atomically). */
export async function useCode(conn: Conn, codeHash: Buffer, at: Date): Promise<boolean> {
  const done = await conn
    .update(oauthCodes)
    .set({ usedAt: at })
    .where(and(eq(oauthCodes.codeHash, codeHash), isNull(oauthCodes.usedAt)))
    .returning({ grantId: oauthCodes.grantId });
  return done.length > 0;
}

export async function insertTokens(conn: Conn, rows: (typeof oauthTokens.$inferInsert)[]): Promise<void> {
  await conn.insert(oauthTokens).values(rows);
}

/** A token with its grant, app and the user's current role (any state). */
export async function findToken(conn: Conn, tokenHash: Buffer) {
  const [row] = await conn
    .select({
      token: oauthTokens,
      grant: oauthGrants,
      appClientId: oauthApps.clientId,
      appDeletedAt: oauthApps.deletedAt,
      appScopes: oauthApps.scopes,
      role: memberships.role,
    })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .innerJoin(oauthApps, eq(oauthApps.id, oauthGrants.appId))
    .leftJoin(memberships, roleOfGrantUser)
    .where(eq(oauthTokens.tokenHash, tokenHash));
  return row;
}

/** Spends a refresh token; false when it already was spent (reuse). */
export async function spendRefreshToken(conn: Conn, id: string, at: Date): Promise<boolean> {
  const done = await conn
    .update(oauthTokens)
    .set({ spentAt: at })
    .where(and(eq(oauthTokens.id, id), isNull(oauthTokens.spentAt), isNull(oauthTokens.revokedAt)))
    .returning({ id: oauthTokens.id });
  return done.length > 0;
}

export async function revokeToken(conn: Conn, id: string, at: Date): Promise<void> {
  await conn
    .update(oauthTokens)
    .set({ revokedAt: at })
    .where(and(eq(oauthTokens.id, id), isNull(oauthTokens.revokedAt)));
}

/** Ends a consent: the grant and every token issued under it. */
export async function revokeGrant(conn: Conn, grantId: string, at: Date): Promise<void> {
  await conn
    .update(oauthGrants)
    .set({ revokedAt: at })
    .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)));
  await conn
    .update(oauthTokens)
    .set({ revokedAt: at })
    .where(and(eq(oauthTokens.grantId, grantId), isNull(oauthTokens.revokedAt)));
}

/**
 * An access token with what deciding on it needs, in one indexed query: its grant, whether the
 * app still exists, the workspace, and the user's current role there (null once they left).
 */
export async function findAccessToken(conn: Conn, tokenHash: Buffer) {
  const [row] = await conn
    .select({
      token: oauthTokens,
      grant: oauthGrants,
      appDeletedAt: oauthApps.deletedAt,
      appScopes: oauthApps.scopes,
      workspace: workspaces,
      role: memberships.role,
    })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .innerJoin(oauthApps, eq(oauthApps.id, oauthGrants.appId))
    .innerJoin(workspaces, eq(workspaces.id, oauthGrants.workspaceId))
    .leftJoin(memberships, and(eq(memberships.workspaceId, oauthGrants.workspaceId), eq(memberships.userId, oauthGrants.userId)))
    .where(and(eq(oauthTokens.tokenHash, tokenHash), eq(oauthTokens.kind, 'access')));
  return row;
}

/** Ends every live consent a user gave in a workspace, and their tokens: two statements however many there are. The grants ended. */
export async function revokeGrantsOf(conn: Conn, userId: string, workspaceId: string, at: Date): Promise<string[]> {
  const ended = await conn
    .update(oauthGrants)
    .set({ revokedAt: at })
    .where(and(eq(oauthGrants.userId, userId), eq(oauthGrants.workspaceId, workspaceId), isNull(oauthGrants.revokedAt)))
    .returning({ id: oauthGrants.id });
  if (ended.length === 0) return [];
  await conn
    .update(oauthTokens)
    .set({ revokedAt: at })
    .where(
      and(
        inArray(
          oauthTokens.grantId,
          ended.map((g) => g.id),
        ),
        isNull(oauthTokens.revokedAt),
      ),
    );
  return ended.map((g) => g.id);
}
