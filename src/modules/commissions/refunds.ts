/**
 * A sale's commission follows the sale's net amount (operations.md §18 "Refunds"): recomputed
 * from what it first earned each time, in the refund's transaction. Paid: a negative custom
 * commission takes the drop back, payable at once. Inside a pending payout: kept as the
 * adjustment (the payout's items never change). A whole refund reverses it (`refund`).
 */
import type { Ctx } from '../../core/context.js';
import { newId } from '../../db/ids.js';
import { netEarnings } from '../program/service.js';
import { clawedBack, insertCommissions, saleCommission, setEarnings, type CommissionRow } from './store.js';

export async function followRefund(ctx: Ctx, sale: { id: string; amount: number; refundedAmount: number }): Promise<CommissionRow | undefined> {
  const c = await saleCommission(ctx.db, ctx.workspace.id, sale.id);
  if (!c) return undefined;
  const net = netEarnings(c.originalEarnings, sale.amount, sale.refundedAmount);
  const whole = sale.refundedAmount >= sale.amount;
  if (c.status === 'paid') {
    const drop = c.earnings + (await clawedBack(ctx.db, ctx.workspace.id, sale.id)) - net;
    if (drop === 0) return undefined;
    const [clawback] = await insertCommissions(ctx.db, [
      {
        id: newId(),
        workspaceId: ctx.workspace.id,
        partnerId: c.partnerId,
        type: 'custom',
        linkId: null,
        customerId: null,
        eventId: sale.id,
        saleAmount: null,
        currency: c.currency,
        earnings: -drop,
        status: 'pending',
        holdReasons: [],
        reversedReason: null,
        description: 'Refund after payout',
        at: null,
        holdingDays: 0,
      },
    ]);
    return clawback;
  }
  if (c.status === 'reversed') return undefined;
  if (c.payoutId) {
    const adjustment = net - c.earnings === 0 ? null : net - c.earnings;
    return setEarnings(ctx.db, c.id, whole ? { adjustment, reversedReason: 'refund' } : { adjustment });
  }
  return setEarnings(ctx.db, c.id, whole ? { earnings: net, status: 'reversed', reversedReason: 'refund' } : { earnings: net });
}
