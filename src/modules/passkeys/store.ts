import { sql } from 'drizzle-orm';
import { rows, timestamptz, type Conn } from '../../db/connect.js';
import { newId } from '../../db/ids.js';

export type ChallengePurpose = 'register' | 'second_factor' | 'sign_in';

export interface PasskeyRow {
  id: string;
  userId: string;
  credentialId: string;
  publicKey: Buffer;
  counter: number;
  transports: string[];
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

const columns = sql`id, user_id AS "userId", credential_id AS "credentialId", public_key AS "publicKey", counter::float8 AS counter,
  transports, name, created_at AS "createdAt", last_used_at AS "lastUsedAt"`;

/** Raw SQL answers timestamps as text on some drivers: one shape for every engine. */
const dated = (r: PasskeyRow): PasskeyRow => ({
  ...r,
  publicKey: Buffer.from(r.publicKey),
  createdAt: new Date(r.createdAt),
  lastUsedAt: r.lastUsedAt === null ? null : new Date(r.lastUsedAt),
});

export async function insertChallenge(conn: Conn, hash: Buffer, purpose: ChallengePurpose, userId: string | null, expiresAt: Date): Promise<void> {
  await conn.execute(
    sql`INSERT INTO passkey_challenges (challenge_hash, purpose, user_id, expires_at) VALUES (${hash}, ${purpose}, ${userId}::uuid, ${timestamptz(expiresAt)})`,
  );
  // Expired an hour ago by the database's clock, not this process's: an instance (or a test's
  // runtime) whose clock runs ahead swept the live challenges of the others.
  await conn.execute(sql`DELETE FROM passkey_challenges WHERE expires_at < now() - interval '1 hour'`);
}

/** Takes a challenge once: the row is deleted whether or not the answer then verifies. */
export async function takeChallenge(conn: Conn, hash: Buffer, now: Date): Promise<{ purpose: ChallengePurpose; userId: string | null } | undefined> {
  const [row] = await rows<{ purpose: ChallengePurpose; userId: string | null; live: boolean }>(
    conn,
    sql`DELETE FROM passkey_challenges WHERE challenge_hash = ${hash}
        RETURNING purpose, user_id AS "userId", expires_at > ${timestamptz(now)} AS live`,
  );
  return row?.live ? { purpose: row.purpose, userId: row.userId } : undefined;
}

export async function listPasskeys(conn: Conn, userId: string): Promise<PasskeyRow[]> {
  return (await rows<PasskeyRow>(conn, sql`SELECT ${columns} FROM passkeys WHERE user_id = ${userId}::uuid ORDER BY created_at, id`)).map(dated);
}

export async function countPasskeys(conn: Conn, userId: string): Promise<number> {
  const [row] = await rows<{ n: number }>(conn, sql`SELECT count(*)::int AS n FROM passkeys WHERE user_id = ${userId}::uuid`);
  return row?.n ?? 0;
}

export async function findByCredentialId(conn: Conn, credentialId: string): Promise<PasskeyRow | undefined> {
  const [row] = await rows<PasskeyRow>(conn, sql`SELECT ${columns} FROM passkeys WHERE credential_id = ${credentialId}`);
  return row && dated(row);
}

/** False when the credential is already registered (to anyone). */
export async function insertPasskey(
  conn: Conn,
  p: { userId: string; credentialId: string; publicKey: Buffer; counter: number; transports: string[]; name: string; createdAt: Date },
): Promise<PasskeyRow | undefined> {
  const [row] = await rows<PasskeyRow>(
    conn,
    sql`INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, transports, name, created_at)
        VALUES (${newId()}::uuid, ${p.userId}::uuid, ${p.credentialId}, ${p.publicKey}, ${p.counter}, ${sql`ARRAY[${sql.join(
          p.transports.map((t) => sql`${t}`),
          sql`, `,
        )}]::text[]`}, ${p.name}, ${timestamptz(p.createdAt)})
        ON CONFLICT (credential_id) DO NOTHING
        RETURNING ${columns}`,
  );
  return row && dated(row);
}

/**
 * Records a use: the new counter only if it moved forward from the one verified against (two
 * answers racing with one counter value: only one wins). Authenticators that keep no counter
 * report 0 every time.
 */
export async function recordUse(conn: Conn, id: string, oldCounter: number, newCounter: number, now: Date): Promise<boolean> {
  const done = await rows<{ id: string }>(
    conn,
    sql`UPDATE passkeys SET counter = ${newCounter}, last_used_at = ${timestamptz(now)}
        WHERE id = ${id}::uuid AND counter = ${oldCounter} RETURNING id`,
  );
  return done.length > 0;
}

export async function deletePasskey(conn: Conn, userId: string, id: string): Promise<boolean> {
  const done = await rows<{ id: string }>(conn, sql`DELETE FROM passkeys WHERE id = ${id}::uuid AND user_id = ${userId}::uuid RETURNING id`);
  return done.length > 0;
}
