/**
 * A sale attributed by a partner's coupon code (operations.md §18 "Coupon codes"): after
 * `leadEventName` and `clickId`, before the customer's latest lead. The code stands for a click
 * on the holder's default link (trigger `coupon`, counted nowhere: clicks/coupon-clicks.ts); a
 * customer seen for the first time also gets a lead `Coupon` from it, so their later sales
 * follow them there. All of it is written in the sale's transaction. A code no partner holds,
 * or whose holder has no default link yet (not approved in a program), is ignored.
 */
import type { Ctx } from '../../core/context.js';
import { withTransaction } from '../../core/transaction.js';
import type { Conn } from '../../db/connect.js';
import { newId } from '../../db/ids.js';
import { recordCouponClick } from '../clicks/service.js';
import { customerIdsByExternalId } from '../customers/service.js';
import { partnerHoldingCoupon } from '../partners/service.js';
import { recordLead, type CustomerInput, type EventOrigin } from './store.js';

/** The lead a coupon makes for a new customer: its event name. */
export const COUPON_LEAD = 'Coupon';

export interface CouponSource {
  partnerId: string;
  linkId: string;
}

/** The default link of the partner holding `code`, when one does. */
export async function couponSource(ctx: Ctx, code: string): Promise<CouponSource | undefined> {
  const holder = await partnerHoldingCoupon({ ctx, input: code });
  return holder?.defaultLinkId ? { partnerId: holder.partnerId, linkId: holder.defaultLinkId } : undefined;
}

/**
 * Writes the coupon's click (and the new customer's lead), then `sale` attributed to them, in
 * one transaction (the caller's when `db` is one).
 */
export function withCouponClick<R>(
  ctx: Ctx,
  db: Conn,
  coupon: CouponSource,
  customer: CustomerInput,
  sale: (db: Conn, attribution: { clickId: string; leadId: string | null; from: EventOrigin }) => Promise<R | undefined>,
): Promise<R | undefined> {
  return withTransaction(db, async (tx) => {
    const clickId = newId();
    const txCtx = { ...ctx, db: tx };
    await recordCouponClick({ ctx: txCtx, input: { id: clickId, linkId: coupon.linkId, partnerId: coupon.partnerId } });
    const known = await customerIdsByExternalId({ ctx: txCtx, input: [customer.externalId] });
    if (known.size) return sale(tx, { clickId, leadId: null, from: { clickId } });
    const lead = await recordLead(tx, {
      id: newId(),
      workspaceId: ctx.workspace.id,
      customerId: newId(),
      eventName: COUPON_LEAD,
      clickId,
      from: { clickId },
      metadata: null,
      customer,
    });
    return sale(tx, { clickId, leadId: lead!.id, from: { leadId: lead!.id } });
  });
}
