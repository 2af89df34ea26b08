import { sql } from 'drizzle-orm';
import type { Conn, Database } from '../../db/connect.js';
import { CLICK_COPY_COLUMNS, clickCopyChunks, enrichClick, type RawClick } from './click-record.js';
import type { CountryLookup } from './visitor.js';

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

/**
 * Writes a batch of clicks in one statement, enriching them on the way: COPY on PostgreSQL,
 * JSON on the embedded engine. A COPY that meets an already-written click (a retried batch
 * whose first attempt did commit) falls back to the insert that skips duplicates.
 */
export async function storeClicks(database: Database, clicks: RawClick[], lookup: CountryLookup): Promise<void> {
  if (clicks.length === 0) return;
  const records = () => clicks.map((c) => enrichClick(c, lookup));
  if (!database.copyText) return insertClicks(database.db, records());
  try {
    await database.copyText('clicks', CLICK_COPY_COLUMNS, clickCopyChunks(clicks, lookup));
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err;
    await insertClicks(database.db, records());
  }
}

/** Clicks replayed from a spool: some may be in the database already, and are skipped. */
export async function replayClicks(database: Database, clicks: RawClick[], lookup: CountryLookup): Promise<void> {
  await insertClicks(database.db, clicks.map((c) => enrichClick(c, lookup)));
}
