import type { BaseCtx } from '../../core/context.js';
import type { Sealer } from '../../core/sealed.js';
import { SEALED_COLUMNS, type SealedColumn } from '../../core/sealed-columns.js';
import * as store from './store.js';

export interface ResealDeps {
  sealer: Sealer;
  /** Told which rows of a table changed (their sealed form), so caches that hold them drop them. */
  changed?: (table: string, ids: string[]) => Promise<void> | void;
  /** Values read per batch; each batch is two statements (one read, at most one write). */
  batchSize?: number;
}

export interface ResealCount {
  table: string;
  column: string;
  purpose: string;
  /** Sealed values found in the column. */
  sealed: number;
  /** Of those, moved to the current SECRET by this run. */
  resealed: number;
  /** Of those, sealed under a SECRET that is neither SECRET nor SECRET_PREVIOUS (or damaged): left as they are. */
  unopenable: number;
  /** The first ids of those (at most UNOPENABLE_IDS), for the operator to look at. */
  unopenableIds: string[];
}

const UNOPENABLE_IDS = 20;

/**
 * `linktrail secrets reseal` (operations.md, rules before §11): opens every sealed value and
 * writes back, under the current SECRET, those `needsReseal` finds under SECRET_PREVIOUS or in
 * an older form. Idempotent: a second run finds nothing to move. A value no key opens is
 * counted and left alone, never a failure of the run.
 */
export async function resealAll({ ctx, deps }: { ctx: BaseCtx; deps: ResealDeps }): Promise<ResealCount[]> {
  const counts: ResealCount[] = [];
  for (const col of SEALED_COLUMNS) counts.push(await resealColumn(ctx, deps, col));
  return counts;
}

async function resealColumn(ctx: BaseCtx, deps: ResealDeps, col: SealedColumn): Promise<ResealCount> {
  const count: ResealCount = { table: col.table, column: col.column, purpose: col.purpose, sealed: 0, resealed: 0, unopenable: 0, unopenableIds: [] };
  const limit = deps.batchSize ?? 500;
  for (let afterId: string | null = null; ;) {
    const batch = await store.sealedAfter(ctx.db, col, afterId, limit);
    count.sealed += batch.length;
    const changes = batch.flatMap((v) => moved(deps.sealer, col, v, count));
    const written = await store.replaceSealed(ctx.db, col, changes);
    count.resealed += written.length;
    if (written.length > 0) await deps.changed?.(col.table, written);
    if (batch.length < limit) return count;
    afterId = batch[batch.length - 1]!.id;
  }
}

/** The value under the current SECRET when it needs a reseal; an unopenable one is counted. */
function moved(sealer: Sealer, col: SealedColumn, v: store.SealedValue, count: ResealCount): { id: string; old: string; sealed: string }[] {
  if (!sealer.needsReseal(col.purpose, v.sealed)) return [];
  try {
    return [{ id: v.id, old: v.sealed, sealed: sealer.seal(col.purpose, sealer.open(col.purpose, v.sealed)) }];
  } catch {
    count.unopenable++;
    if (count.unopenableIds.length < UNOPENABLE_IDS) count.unopenableIds.push(v.id);
    return [];
  }
}
