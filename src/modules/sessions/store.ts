import { and, asc, eq, isNull, ne, sql, type SQL } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import { recordLastUse } from '../../db/last-use.js';
import { sessions, users } from '../../db/schema.js';

export type SessionRow = typeof sessions.$inferSelect;
export type UserRow = typeof users.$inferSelect;

export async function insertSession(conn: Conn, row: typeof sessions.$inferInsert): Promise<SessionRow> {
  const [created] = await conn.insert(sessions).values(row).returning();
  return created!;
}

/** The session with this hash and its user, in one indexed lookup. */
export async function findSessionByHash(conn: Conn, tokenHash: Buffer): Promise<{ session: SessionRow; user: UserRow } | undefined> {
  const [row] = await conn
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.tokenHash, tokenHash));
  return row;
}

export async function findSession(conn: Conn, id: string): Promise<SessionRow | undefined> {
  const [row] = await conn.select().from(sessions).where(eq(sessions.id, id));
  return row;
}

export function sessionsOf(conn: Conn, userId: string): Promise<SessionRow[]> {
  return conn
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)))
    .orderBy(asc(sessions.createdAt), asc(sessions.seq));
}

export async function touchSession(conn: Conn, id: string, at: Date): Promise<void> {
  await conn.update(sessions).set({ lastSeenAt: at }).where(eq(sessions.id, id));
}

/** Revokes one session of the user; false when there is none (or it is another user's). */
export async function revokeSession(conn: Conn, userId: string, id: string, at: Date): Promise<boolean> {
  const done = await conn
    .update(sessions)
    .set({ revokedAt: at })
    .where(and(eq(sessions.id, id), eq(sessions.userId, userId), isNull(sessions.revokedAt)))
    .returning({ id: sessions.id });
  return done.length > 0;
}

/** Revokes every session of the user but `except` (a password change keeps the current one). */
export async function revokeOtherSessions(conn: Conn, userId: string, except: string | undefined, at: Date): Promise<number> {
  const done = await conn
    .update(sessions)
    .set({ revokedAt: at })
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), except ? ne(sessions.id, except) : undefined))
    .returning({ id: sessions.id });
  return done.length;
}

/** Records many last-use times in one statement (a later time already recorded is kept). */
export const touchSessions = (conn: Conn, entries: { id: string; at: Date }[]): Promise<void> => recordLastUse(conn, 'sessions', entries);

/** Records that the user signed in from visitor `hash` on `day` (sign_in_visitors, migration 0041); once per user, day and hash. */
export async function recordSignInVisitor(conn: Conn, userId: string, day: string, hash: string): Promise<void> {
  await conn.execute(sql`INSERT INTO sign_in_visitors (user_id, day, hash) VALUES (${userId}::uuid, ${day}::date, ${hash}::bigint) ON CONFLICT DO NOTHING`);
}

/** Whether the user signed in from visitor `hash` on `day` (one primary-key lookup), as a boolean expression of another module's statement over SQL expressions (`day`: a date, `hash`: a bigint). */
export function signedInFromVisitorSql(userId: SQL, day: SQL, hash: SQL): SQL {
  return sql`EXISTS (SELECT 1 FROM sign_in_visitors WHERE user_id = ${userId} AND day = ${day} AND hash = ${hash})`;
}

/**
 * Deletes the sign-in visitors of the days before yesterday (UTC, by the database's clock): a
 * click of yesterday is still judged today (its hashes are kept 24 hours), none older.
 */
export async function forgetSignInVisitors(conn: Conn): Promise<number> {
  const [gone] = await rows<{ n: number }>(
    conn,
    sql`WITH d AS (DELETE FROM sign_in_visitors WHERE day < (now() AT TIME ZONE 'UTC')::date - 1 RETURNING 1) SELECT count(*)::int AS n FROM d`,
  );
  return gone?.n ?? 0;
}
