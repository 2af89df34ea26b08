import { sql } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';

export interface QueuedMail {
  id: string;
  kind: string;
  messageSealed: string;
  attempts: number;
}

/** Writes a message to the outbox; call in the transaction of the change it tells of. */
export async function insertMail(conn: Conn, o: { id: string; kind: string; messageSealed: string }): Promise<void> {
  await conn.execute(sql`INSERT INTO mail_outbox (id, kind, message_sealed) VALUES (${o.id}::uuid, ${o.kind}, ${o.messageSealed})`);
}

/** The next due message nobody holds, held by the caller for `leaseMs`. */
export async function leaseMail(conn: Conn, leaseMs: number): Promise<QueuedMail | undefined> {
  const [row] = await rows<QueuedMail>(
    conn,
    sql`WITH next AS (SELECT id FROM mail_outbox WHERE next_attempt_at <= now() AND (leased_until IS NULL OR leased_until < now())
          ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        UPDATE mail_outbox m SET leased_until = now() + make_interval(secs => ${leaseMs / 1000}), attempts = attempts + 1
        FROM next WHERE m.id = next.id
        RETURNING m.id, m.kind, m.message_sealed AS "messageSealed", m.attempts`,
  );
  return row;
}

/** The server took the message: nothing of it stays. */
export async function deleteMail(conn: Conn, id: string): Promise<void> {
  await conn.execute(sql`DELETE FROM mail_outbox WHERE id = ${id}::uuid`);
}

/** A failed attempt: tried again after `delayMs`. */
export async function retryMail(conn: Conn, id: string, delayMs: number, error: string): Promise<void> {
  await conn.execute(
    sql`UPDATE mail_outbox SET leased_until = NULL, last_error = ${error.slice(0, 500)},
          next_attempt_at = now() + make_interval(secs => ${delayMs / 1000}) WHERE id = ${id}::uuid`,
  );
}

/** How many messages wait (for tests and the operator's health view). */
export async function countQueued(conn: Conn): Promise<number> {
  const [row] = await rows<{ n: number }>(conn, sql`SELECT count(*)::int AS n FROM mail_outbox`);
  return row?.n ?? 0;
}
