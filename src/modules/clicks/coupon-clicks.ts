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

/**
 * The clicks an affiliate-tool import's referred customers stand on (operations.md §18 "Moving
 * in"): like a coupon's, on the partner's default link, stored with the bot flag (counted
 * nowhere, never listed), but dated when the old tool says the customer was referred, trigger
 * `link` (they came by the partner's link there). One statement for the batch.
 */
export async function insertReferralClicks(
  conn: Conn,
  workspaceId: string,
  clicks: { id: string; linkId: string; partnerId: string; createdAt: string }[],
): Promise<void> {
  if (clicks.length === 0) return;
  await conn.execute(
    sql`INSERT INTO clicks (id, workspace_id, link_id, partner_id, created_at, device, referrer, bot, trigger)
        SELECT x.id, ${workspaceId}::uuid, x."linkId", x."partnerId", x."createdAt", 'other', '(direct)', true, 'link'
        FROM jsonb_to_recordset(${JSON.stringify(clicks)}::jsonb) AS x(id uuid, "linkId" uuid, "partnerId" uuid, "createdAt" timestamptz)`,
  );
}
