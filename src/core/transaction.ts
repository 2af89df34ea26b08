import type { Conn, Db, Tx } from '../db/connect.js';
import { absorbResult, auditOf, writeAudit } from './audit.js';

/**
 * Reuses an open transaction, or opens one. On the connection of a request that changes a
 * workspace (auditedConn), the transaction it opens also writes that request's audit entry
 * (core/audit.ts) before it commits: a failed change rolls its entry back with it.
 *
 * A transaction that returns nothing (undefined, null or false) changed nothing the entry can
 * name — the record was not found, so the request is about to answer 404 — and writes no entry:
 * the answer does, if it is a success (audit/hook.ts). A transaction that changes something
 * therefore returns what it changed, so its entry commits with it.
 */
export function withTransaction<T>(conn: Conn, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if ('rollback' in conn) return fn(conn as Tx);
  const intent = auditOf(conn);
  if (!intent) return (conn as Db).transaction(fn);
  return (conn as Db).transaction(async (tx) => {
    const result = await fn(tx);
    if (changedNothing(result)) return result;
    absorbResult(intent, result);
    await writeAudit(tx, intent);
    return result;
  });
}

const changedNothing = (result: unknown) => result === undefined || result === null || result === false;

/** Whether the database refused a write for a unique constraint (PostgreSQL 23505, also when wrapped by the driver). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

/** Whether PostgreSQL ended the statement to break a deadlock (40P01) or a serialization conflict (40001): safe to run again. */
export function isRetryableConflict(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  const code = e?.code ?? e?.cause?.code;
  return code === '40P01' || code === '40001';
}

/**
 * Runs `fn` again (up to `tries` times in all, after 5–30 ms) when the database ended it to
 * break a deadlock: what it wrote was rolled back whole, so a run again writes it once. A safety
 * net: event tracking and the click writer, which take some of the same rows, take them in one
 * order (analytics/link-days.ts); before they did, the soak bench saw a 500 about once in 5,000
 * tracked events.
 */
export async function retryOnConflict<T>(fn: () => Promise<T>, tries = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= tries || !isRetryableConflict(err)) throw err;
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 25));
    }
  }
}
