import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { Conn } from '../../db/connect.js';
import { oauthApps, oauthGrants, users } from '../../db/schema.js';

export type AppRow = typeof oauthApps.$inferSelect;

/** A registered app that is not deleted, of this workspace. */
const liveApp = (workspaceId: string, id: string) => and(eq(oauthApps.id, id), eq(oauthApps.workspaceId, workspaceId), isNull(oauthApps.deletedAt));

export async function insertApp(conn: Conn, row: typeof oauthApps.$inferInsert): Promise<AppRow> {
  const [created] = await conn.insert(oauthApps).values(row).returning();
  return created!;
}

export function listApps(conn: Conn, workspaceId: string): Promise<AppRow[]> {
  return conn
    .select()
    .from(oauthApps)
    .where(and(eq(oauthApps.workspaceId, workspaceId), isNull(oauthApps.deletedAt)))
    .orderBy(asc(oauthApps.createdAt), asc(oauthApps.seq));
}

export async function findApp(conn: Conn, workspaceId: string, id: string): Promise<AppRow | undefined> {
  const [row] = await conn.select().from(oauthApps).where(liveApp(workspaceId, id));
  return row;
}

/** The live app with this client id, whichever workspace registered it. */
export async function findAppByClientId(conn: Conn, clientId: string): Promise<AppRow | undefined> {
  const [row] = await conn
    .select()
    .from(oauthApps)
    .where(and(eq(oauthApps.clientId, clientId), isNull(oauthApps.deletedAt)));
  return row;
}

export async function updateApp(
  conn: Conn,
  workspaceId: string,
  id: string,
  patch: Partial<Pick<AppRow, 'name' | 'redirectUris' | 'scopes'>>,
): Promise<AppRow | undefined> {
  const [row] = await conn.update(oauthApps).set(patch).where(liveApp(workspaceId, id)).returning();
  return row;
}

/** Replaces the secret hash of a live confidential app; false when there is none. */
export async function setSecretHash(conn: Conn, workspaceId: string, id: string, secretHash: Buffer): Promise<boolean> {
  const done = await conn
    .update(oauthApps)
    .set({ secretHash })
    .where(and(liveApp(workspaceId, id), eq(oauthApps.confidential, true)))
    .returning({ id: oauthApps.id });
  return done.length > 0;
}

export async function markAppDeleted(conn: Conn, workspaceId: string, id: string, at: Date): Promise<boolean> {
  const done = await conn.update(oauthApps).set({ deletedAt: at }).where(liveApp(workspaceId, id)).returning({ id: oauthApps.id });
  return done.length > 0;
}

/** Every live grant of the app, in whichever workspace a user connected it. */
export async function revokeGrantsOfApp(conn: Conn, appId: string, at: Date): Promise<string[]> {
  const ended = await conn
    .update(oauthGrants)
    .set({ revokedAt: at })
    .where(and(eq(oauthGrants.appId, appId), isNull(oauthGrants.revokedAt)))
    .returning({ id: oauthGrants.id });
  return ended.map((g) => g.id);
}

export interface GrantView {
  id: string;
  scopes: string[];
  createdAt: Date;
  app: { id: string; name: string; clientId: string };
  user: { id: string; email: string; name: string };
}

/** Live grants in this workspace (apps connected to it) whose app is not deleted, oldest first. */
export function listLiveGrants(conn: Conn, workspaceId: string): Promise<GrantView[]> {
  return conn
    .select({
      id: oauthGrants.id,
      scopes: oauthGrants.scopes,
      createdAt: oauthGrants.createdAt,
      app: { id: oauthApps.id, name: oauthApps.name, clientId: oauthApps.clientId },
      user: { id: users.id, email: users.email, name: users.name },
    })
    .from(oauthGrants)
    .innerJoin(oauthApps, eq(oauthApps.id, oauthGrants.appId))
    .innerJoin(users, eq(users.id, oauthGrants.userId))
    .where(and(eq(oauthGrants.workspaceId, workspaceId), isNull(oauthGrants.revokedAt), isNull(oauthApps.deletedAt)))
    .orderBy(asc(oauthGrants.createdAt), asc(oauthGrants.seq));
}

/** Revokes a live grant in this workspace whose app is not deleted; false when there is none. */
export async function revokeGrant(conn: Conn, workspaceId: string, id: string, at: Date): Promise<boolean> {
  const liveAppIds = conn.select({ id: oauthApps.id }).from(oauthApps).where(isNull(oauthApps.deletedAt));
  const done = await conn
    .update(oauthGrants)
    .set({ revokedAt: at })
    .where(and(eq(oauthGrants.id, id), eq(oauthGrants.workspaceId, workspaceId), isNull(oauthGrants.revokedAt), inArray(oauthGrants.appId, liveAppIds)))
    .returning({ id: oauthGrants.id });
  return done.length > 0;
}
