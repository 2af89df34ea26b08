import { sql } from 'drizzle-orm';
import type { Conn } from '../../db/connect.js';

export interface ClickRow {
  id: string;
  workspaceId: string;
  linkId: string;
  partnerId: string | null;
  createdAt: string;
  country: string | null;
  device: 'desktop' | 'mobile' | 'tablet' | 'other';
  browser: string | null;
  os: string | null;
  referrer: string;
  referrerUrl: string | null;
  bot: boolean;
}

/** One statement for a whole batch of clicks. */
export async function insertClicks(conn: Conn, clicks: ClickRow[]): Promise<void> {
  if (clicks.length === 0) return;
  await conn.execute(sql`
    INSERT INTO clicks (id, workspace_id, link_id, partner_id, created_at, country, device, browser, os, referrer, referrer_url, bot)
    SELECT x.id, x."workspaceId", x."linkId", x."partnerId", x."createdAt", x.country, x.device, x.browser, x.os,
           x.referrer, x."referrerUrl", x.bot
    FROM jsonb_to_recordset(${JSON.stringify(clicks)}::jsonb) AS x(
      id uuid, "workspaceId" uuid, "linkId" uuid, "partnerId" uuid, "createdAt" timestamptz, country text, device text,
      browser text, os text, referrer text, "referrerUrl" text, bot boolean)
    ON CONFLICT (id, created_at) DO NOTHING`);
}
