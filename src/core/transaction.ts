import type { Conn, Db, Tx } from '../db/connect.js';

/** Reuses an open transaction, or opens one. */
export function withTransaction<T>(conn: Conn, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if ('rollback' in conn) return fn(conn as Tx);
  return (conn as Db).transaction(fn);
}

/** Whether the database refused a write for a unique constraint (PostgreSQL 23505, also when wrapped by the driver). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}
