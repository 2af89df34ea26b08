/**
 * Disputes of a Stripe payment (operations.md §12): the sale that payment made keeps its revenue
 * while the dispute is open, but its partner commission (§18) is held (`dispute`); a lost dispute
 * is a whole refund, through the refund path, so the commission follows (reversed, or clawed back
 * if paid); a won one releases the hold. All in the event's transaction (`ctx.db`).
 */
import type { Ctx } from '../../core/context.js';
import { holdSaleCommissionForDispute, releaseSaleCommissionDisputeHold } from '../commissions/service.js';
import { applyRefund, findStripeSale } from '../conversions/service.js';
import type { Meaning } from './mapping.js';
import type { Result } from './store.js';

export async function disputeEvent(ctx: Ctx, m: Extract<Meaning, { kind: 'dispute' }>): Promise<Result> {
  const sale = m.paymentIntentId ? await findStripeSale({ ctx, input: { paymentIntentId: m.paymentIntentId } }) : undefined;
  if (!sale) return { outcome: 'unattributed', saleId: null, reason: 'no_sale' };
  switch (m.phase) {
    case 'opened':
      await holdSaleCommissionForDispute({ ctx, input: { saleId: sale.id } });
      return { outcome: 'dispute', saleId: sale.id };
    case 'won':
      await releaseSaleCommissionDisputeHold({ ctx, input: { saleId: sale.id } });
      return { outcome: 'dispute', saleId: sale.id };
    case 'lost':
      if (sale.refundedAmount < sale.amount) await applyRefund({ ctx, input: { saleId: sale.id, refundedAmount: sale.amount } });
      return { outcome: 'refund', saleId: sale.id };
    default:
      return { outcome: 'dispute', saleId: sale.id };
  }
}
