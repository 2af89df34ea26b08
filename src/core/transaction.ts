import type { Conn, Db, Tx } from '../db/connect.js';

/** What runs once a transaction withTransaction (or withSavepoint) opened has committed, by transaction. */
const commitHooks = new WeakMap<Tx, (() => void)[]>();

/**
 * Reuses an open transaction, or opens one. A service that changes a workspace writes its
 * request's audit entry in it (`audit(ctx, tx, …)`, core/audit.ts), so the change and its entry
 * commit together or not at all.
 */
export async function withTransaction<T>(conn: Conn, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if ('rollback' in conn) return fn(conn as Tx);
  const hooks: (() => void)[] = [];
  const result = await (conn as Db).transaction((tx) => {
    commitHooks.set(tx, hooks);
    return fn(tx);
  });
  for (const hook of hooks) hook();
  return result;
}

/** `fn` in a savepoint of `tx`: rolled back alone when it throws; what it asked to run after the commit then never runs. */
export async function withSavepoint<T>(tx: Tx, fn: (sp: Tx) => Promise<T>): Promise<T> {
  const hooks: (() => void)[] = [];
  const result = await tx.transaction((sp) => {
    commitHooks.set(sp, hooks);
    return fn(sp);
  });
  for (const hook of hooks) afterCommit(tx, hook);
  return result;
}

/**
 * Runs `hook` once `tx` has committed; never if it rolls back. At once in a transaction opened
 * elsewhere than withTransaction or withSavepoint (whose end is not known here).
 */
export function afterCommit(tx: Tx, hook: () => void): void {
  const hooks = commitHooks.get(tx);
  if (hooks) hooks.push(hook);
  else hook();
}

/** Whether the database refused a write for a unique constraint (PostgreSQL 23505, also when wrapped by the driver). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

/** Whether a write decided from an earlier read refused itself because the read no longer held (migration 0054, SQLSTATE LT409). */
export function isPlanStale(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return (e?.code ?? e?.cause?.code) === 'LT409';
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
 * order (analytics/store-rollup-writes.ts); before they did, the soak bench saw a 500 about once in 5,000
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

/** The unique index or constraint a write broke (also when wrapped by the driver); undefined for any other error. */
export function uniqueConstraintOf(err: unknown): string | undefined {
  if (!isUniqueViolation(err)) return undefined;
  const e = err as { constraint?: string; cause?: { constraint?: string } };
  return e.constraint ?? e.cause?.constraint;
}
