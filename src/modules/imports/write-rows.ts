import type { Ctx } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { withSavepoint } from '../../core/transaction.js';
import type { Tx } from '../../db/connect.js';
import { translate } from '../../i18n/messages.js';

/** A row an import could not write, and why. */
export interface RowFailure {
  line: number;
  field: string;
  reason: string;
  message: { en: string; ar: string };
  /** The row was written all the same, without this field: listed with the rejected rows, not counted as failed. */
  leftOut?: boolean;
}

/** The item index a service's 400 names (`[3].url` → 3, and `url`), if it names one. */
function namedItem(err: AppError): { index: number; field: string; reason: string } | undefined {
  if (err.code !== 'invalid_field') return undefined;
  const m = /^\[(\d+)\]\.?(.*)$/.exec(String(err.params.field ?? ''));
  if (!m) return undefined;
  return { index: Number(m[1]), field: m[2] || 'row', reason: String(err.params.reasonCode ?? 'invalid') };
}

/**
 * Writes rows through a service call that checks them as the API does, per row rather than
 * atomic (operations.md §13): a 400 naming an item (`[3].url`) fails that row and the rest is
 * tried again, each try in a savepoint so a refused one leaves nothing behind; a 400 naming no
 * item fails every row left. Returns the rows written.
 */
export async function writeRows<T extends { line: number }>(
  ctx: Ctx,
  rows: T[],
  write: (ctx: Ctx, rows: T[]) => Promise<unknown>,
  failures: RowFailure[],
): Promise<T[]> {
  let left = rows;
  while (left.length > 0) {
    try {
      await withSavepoint(ctx.db as Tx, (sp) => write({ ...ctx, db: sp }, left));
      return left;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const named = namedItem(err);
      if (!named || !left[named.index]) {
        for (const r of left) failures.push({ line: r.line, field: 'row', reason: err.code, message: translate(err.code, err.params) });
        return [];
      }
      const bad = left[named.index]!;
      failures.push({ line: bad.line, field: named.field, reason: named.reason, message: translate(err.code, { ...err.params, field: named.field }) });
      left = left.filter((r) => r !== bad);
    }
  }
  return left;
}
