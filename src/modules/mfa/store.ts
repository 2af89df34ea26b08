import { sql } from 'drizzle-orm';
import { rows, timestamptz, type Conn } from '../../db/connect.js';
import { newId } from '../../db/ids.js';

export interface TotpRow {
  seedSealed: string;
  confirmedAt: Date | null;
  lastStep: number;
}

export async function findTotp(conn: Conn, userId: string): Promise<TotpRow | undefined> {
  const [row] = await rows<TotpRow>(
    conn,
    sql`SELECT seed_sealed AS "seedSealed", confirmed_at AS "confirmedAt", last_step::float8 AS "lastStep" FROM user_totp WHERE user_id = ${userId}::uuid`,
  );
  return row;
}

/** A new seed awaiting its first code (replaces an unconfirmed one; never a confirmed one). */
export async function startTotp(conn: Conn, userId: string, seedSealed: string, now: Date): Promise<boolean> {
  const done = await rows<{ userId: string }>(
    conn,
    sql`INSERT INTO user_totp (user_id, seed_sealed, created_at) VALUES (${userId}::uuid, ${seedSealed}, ${timestamptz(now)})
        ON CONFLICT (user_id) DO UPDATE SET seed_sealed = EXCLUDED.seed_sealed, created_at = EXCLUDED.created_at, last_step = 0
        WHERE user_totp.confirmed_at IS NULL
        RETURNING user_id AS "userId"`,
  );
  return done.length > 0;
}

/** Records `step` as used if it is later than the last used one; false for a replay. */
export async function useStep(conn: Conn, userId: string, step: number, confirmAt?: Date): Promise<boolean> {
  const done = await rows<{ userId: string }>(
    conn,
    sql`UPDATE user_totp SET last_step = ${step}, confirmed_at = COALESCE(confirmed_at, ${confirmAt ? timestamptz(confirmAt) : sql`NULL`})
        WHERE user_id = ${userId}::uuid AND last_step < ${step} RETURNING user_id AS "userId"`,
  );
  return done.length > 0;
}

export async function deleteTotp(conn: Conn, userId: string): Promise<void> {
  await conn.execute(sql`DELETE FROM user_totp WHERE user_id = ${userId}::uuid`);
  await conn.execute(sql`DELETE FROM recovery_codes WHERE user_id = ${userId}::uuid`);
}

export async function replaceRecoveryCodes(conn: Conn, userId: string, hashes: Buffer[]): Promise<void> {
  await conn.execute(sql`DELETE FROM recovery_codes WHERE user_id = ${userId}::uuid`);
  for (const hash of hashes) await conn.execute(sql`INSERT INTO recovery_codes (id, user_id, code_hash) VALUES (${newId()}::uuid, ${userId}::uuid, ${hash})`);
}

/** Uses a recovery code once; false when it is not one of the user's unused codes. */
export async function useRecoveryCode(conn: Conn, userId: string, hash: Buffer, now: Date): Promise<boolean> {
  const done = await rows<{ id: string }>(
    conn,
    sql`UPDATE recovery_codes SET used_at = ${timestamptz(now)} WHERE id = (
          SELECT id FROM recovery_codes WHERE user_id = ${userId}::uuid AND code_hash = ${hash} AND used_at IS NULL LIMIT 1 FOR UPDATE)
        RETURNING id`,
  );
  return done.length > 0;
}

export async function recoveryCodesLeft(conn: Conn, userId: string): Promise<number> {
  const [row] = await rows<{ n: number }>(conn, sql`SELECT count(*)::int AS n FROM recovery_codes WHERE user_id = ${userId}::uuid AND used_at IS NULL`);
  return row?.n ?? 0;
}

export async function insertPending(conn: Conn, tokenHash: Buffer, userId: string, expiresAt: Date): Promise<void> {
  await conn.execute(sql`INSERT INTO mfa_pending (token_hash, user_id, expires_at) VALUES (${tokenHash}, ${userId}::uuid, ${timestamptz(expiresAt)})`);
  await conn.execute(sql`DELETE FROM mfa_pending WHERE expires_at < now() - interval '1 hour'`);
}

export async function findPending(conn: Conn, tokenHash: Buffer, now: Date): Promise<{ userId: string; failures: number } | undefined> {
  const [row] = await rows<{ userId: string; failures: number }>(
    conn,
    sql`SELECT user_id AS "userId", failures FROM mfa_pending WHERE token_hash = ${tokenHash} AND expires_at > ${timestamptz(now)} FOR UPDATE`,
  );
  return row;
}

export async function deletePending(conn: Conn, tokenHash: Buffer): Promise<void> {
  await conn.execute(sql`DELETE FROM mfa_pending WHERE token_hash = ${tokenHash}`);
}

/** Counts a wrong code against the pending login and the account; the pending login's count after it. */
export async function recordFailure(conn: Conn, tokenHash: Buffer, userId: string, now: Date): Promise<number> {
  await conn.execute(sql`INSERT INTO mfa_failures (user_id, at) VALUES (${userId}::uuid, ${timestamptz(now)})`);
  const [row] = await rows<{ failures: number }>(conn, sql`UPDATE mfa_pending SET failures = failures + 1 WHERE token_hash = ${tokenHash} RETURNING failures`);
  return row?.failures ?? 0;
}

export async function recordAccountFailure(conn: Conn, userId: string, now: Date): Promise<void> {
  await conn.execute(sql`INSERT INTO mfa_failures (user_id, at) VALUES (${userId}::uuid, ${timestamptz(now)})`);
}

/** Deletes the wrong answers older than `ageMs` by the database's clock (an instance's own may run ahead or behind). */
export async function deleteOldFailures(conn: Conn, ageMs: number): Promise<void> {
  await conn.execute(sql`DELETE FROM mfa_failures WHERE at < now() - make_interval(secs => ${ageMs / 1000})`);
}

export async function failuresSince(conn: Conn, userId: string, since: Date): Promise<number> {
  const [row] = await rows<{ n: number }>(
    conn,
    sql`SELECT count(*)::int AS n FROM mfa_failures WHERE user_id = ${userId}::uuid AND at > ${timestamptz(since)}`,
  );
  return row?.n ?? 0;
}
