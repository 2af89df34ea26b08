import { sql } from 'drizzle-orm';
import type { Conn, Database } from '../../db/connect.js';

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

const COLUMNS = ['id', 'workspace_id', 'link_id', 'partner_id', 'created_at', 'country', 'device', 'browser', 'os', 'referrer', 'referrer_url', 'bot'];

/**
 * Writes a batch of clicks in one statement: COPY on PostgreSQL, JSON on the embedded engine.
 * A COPY that meets an already-written click (a retried batch whose first attempt did commit)
 * falls back to the insert that skips duplicates.
 */
export async function storeClicks(database: Database, clicks: ClickRow[]): Promise<void> {
  if (clicks.length === 0) return;
  if (!database.copyRows) return insertClicks(database.db, clicks);
  try {
    await database.copyRows(
      'clicks',
      COLUMNS,
      clicks.map((c) => [c.id, c.workspaceId, c.linkId, c.partnerId, c.createdAt, c.country, c.device, c.browser, c.os, c.referrer, c.referrerUrl, c.bot]),
    );
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err;
    await insertClicks(database.db, clicks);
  }
}
