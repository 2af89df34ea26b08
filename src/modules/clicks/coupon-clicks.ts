/**
 * The click a partner's coupon code stands for (operations.md §18 "Coupon codes"): a sale that
 * names a coupon had no visitor, so its origin is recorded as a click on the partner's default
 * link with trigger `coupon`. It is stored in the sale's transaction and goes into no rollup;
 * stored with the bot flag (the clicks tables' "never counted, never listed"), every raw read
 * (GET /api/events, analytics of quiet links, click rewards) passes over it as well, with the
 * indexes they use unchanged. The lead and sale that follow it carry its partner and trigger
 * like any click's.
 */
import { sql } from 'drizzle-orm';
import type { Conn } from '../../db/connect.js';

export interface CouponClick {
  id: string;
  workspaceId: string;
  linkId: string;
  partnerId: string;
}

export async function insertCouponClick(conn: Conn, c: CouponClick): Promise<void> {
  await conn.execute(
    sql`INSERT INTO clicks (id, workspace_id, link_id, partner_id, created_at, device, referrer, bot, trigger)
        VALUES (${c.id}::uuid, ${c.workspaceId}::uuid, ${c.linkId}::uuid, ${c.partnerId}::uuid, now(), 'other', '(direct)', true, 'coupon')`,
  );
}
