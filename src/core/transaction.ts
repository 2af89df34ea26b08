import type { Conn, Db, Tx } from '../db/connect.js';
import { absorbResult, currentAudit, writeAudit } from './audit.js';

/**
 * Reuses an open transaction, or opens one. In a request that changes a workspace, the
 * transaction it opens also writes that request's audit entry (core/audit.ts) before it
 * commits: a failed change rolls its entry back with it.
 */
export function withTransaction<T>(conn: Conn, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if ('rollback' in conn) return fn(conn as Tx);
  const intent = currentAudit();
  if (!intent) return (conn as Db).transaction(fn);
  return (conn as Db).transaction(async (tx) => {
    const result = await fn(tx);
    absorbResult(intent, result);
    await writeAudit(tx, intent);
    return result;
  });
}

/** Whether the database refused a write for a unique constraint (PostgreSQL 23505, also when wrapped by the driver). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}
