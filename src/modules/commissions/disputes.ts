/**
 * A sale's commission while its payment is disputed (operations.md §12, §18): held with the
 * reason `dispute` when the dispute opens, released (that reason only) when it is won; a lost
 * dispute is a whole refund and goes through refunds.ts. A paid commission never changes, and
 * one inside a pending payout keeps its place there (the payout's items never change; a loss
 * is kept as its adjustment).
 */
import { sql } from 'drizzle-orm';
import type { Ctx } from '../../core/context.js';
import { rows } from '../../db/connect.js';
import { commissionsUpdated } from './events.js';
import { CLAIMED_BY, guardFromClaims } from './payout-claims.js';
import { listCommissionRows, type CommissionRow } from './store.js';

export const DISPUTE = 'dispute';

async function changed(ctx: Ctx, ids: { id: string }[]): Promise<CommissionRow | undefined> {
  if (ids.length === 0) return undefined;
  const [row] = await listCommissionRows(ctx.db, ctx.workspace.id, { id: ids[0]!.id, take: 1, skip: 0, sort: 'asc' });
  if (row) await commissionsUpdated(ctx, [row]);
  return row;
}

/** Holds the sale's commission (pending, payable or already held) for a dispute; undefined when nothing changed. */
export async function holdForDispute(ctx: Ctx, saleId: string): Promise<CommissionRow | undefined> {
  const sale = sql`c.workspace_id = ${ctx.workspace.id}::uuid AND c.event_id = ${saleId}::uuid AND c.type = 'sale'`;
  await guardFromClaims(ctx.db, ctx.workspace.id);
  const ids = await rows<{ id: string }>(
    ctx.db,
    sql`UPDATE commissions c SET status = 'held', hold_reasons = array_append(hold_reasons, ${DISPUTE}), updated_at = now()
        WHERE ${sale} AND c.status IN ('pending', 'held') AND ${CLAIMED_BY} IS NULL AND NOT (${DISPUTE} = ANY(c.hold_reasons))
        RETURNING c.id`,
  );
  return changed(ctx, ids);
}

/** Takes the `dispute` reason off the sale's held commission: pending again (payableAt unchanged) unless another reason still holds it. */
export async function releaseDisputeHold(ctx: Ctx, saleId: string): Promise<CommissionRow | undefined> {
  const ids = await rows<{ id: string }>(
    ctx.db,
    sql`UPDATE commissions SET hold_reasons = array_remove(hold_reasons, ${DISPUTE}),
          status = CASE WHEN cardinality(array_remove(hold_reasons, ${DISPUTE})) = 0 THEN 'pending' ELSE status END, updated_at = now()
        WHERE workspace_id = ${ctx.workspace.id}::uuid AND event_id = ${saleId}::uuid AND type = 'sale'
          AND status = 'held' AND ${DISPUTE} = ANY(hold_reasons)
        RETURNING id`,
  );
  return changed(ctx, ids);
}
