import { sql } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';

export async function insertReset(conn: Conn, o: { id: string; userId: string; tokenHash: Buffer; expiresAt: Date; createdAt: Date }): Promise<void> {
  await conn.execute(
    sql`INSERT INTO password_resets (id, user_id, token_hash, expires_at, created_at)
        VALUES (${o.id}::uuid, ${o.userId}::uuid, ${o.tokenHash}, ${o.expiresAt.toISOString()}::timestamptz, ${o.createdAt.toISOString()}::timestamptz)`,
  );
}

/** Serialises the making of links for one user until the transaction ends. */
export async function lockUserResets(conn: Conn, userId: string): Promise<void> {
  await conn.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`password-reset:${userId}`}, 0))`);
}

/** Resets made for the user since `since` (mailed or not), to cap the mails per hour. */
export async function countResetsSince(conn: Conn, userId: string, since: Date): Promise<number> {
  const [row] = await rows<{ n: number }>(
    conn,
    sql`SELECT count(*)::int AS n FROM password_resets WHERE user_id = ${userId}::uuid AND created_at > ${since.toISOString()}::timestamptz`,
  );
  return row?.n ?? 0;
}

/**
 * Uses the token once: marks it, and every other open link of the same user, used; the user's
 * id, or undefined for a token unknown, used or expired.
 */
export async function claimReset(conn: Conn, tokenHash: Buffer, now: Date): Promise<string | undefined> {
  const [row] = await rows<{ userId: string }>(
    conn,
    sql`UPDATE password_resets SET used_at = ${now.toISOString()}::timestamptz
        WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > ${now.toISOString()}::timestamptz
        RETURNING user_id AS "userId"`,
  );
  if (!row) return undefined;
  await conn.execute(sql`UPDATE password_resets SET used_at = ${now.toISOString()}::timestamptz WHERE user_id = ${row.userId}::uuid AND used_at IS NULL`);
  return row.userId;
}

/**
 * Links made over `ageMs` ago by the database's clock, removed: an instance whose clock runs
 * ahead would delete the others' links still open.
 */
export async function deleteOldResets(conn: Conn, ageMs: number): Promise<void> {
  await conn.execute(sql`DELETE FROM password_resets WHERE created_at < now() - make_interval(secs => ${ageMs / 1000})`);
}
