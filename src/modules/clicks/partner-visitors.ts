import { sql } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import { FIRST_FOR_PARTNER } from './visitors.js';

/** Distinct visitors of one partner on one UTC day whose first click there came from `country`. */
export interface PartnerVisitorCount {
  workspaceId: string;
  partnerId: string;
  /** YYYY-MM-DD (UTC). */
  day: string;
  country: string | null;
  visitors: number;
}

/**
 * The distinct visitors (§14's daily hash) of each partner and UTC day, by the country of each
 * visitor's first click of the day on links recorded for that partner (visitor_flags bit 4, which
 * the click writer gives exactly one click per visitor, partner and day, across batches and
 * instances): the clicks of each workspace from `since` to `before`, humans only (bots are never
 * claimed), no coupon clicks. HEAD requests and prefetches are never recorded as clicks. One
 * statement for every workspace, reading clicks_partner_visitors_idx (migration 0040). Summed
 * over countries, a partner's day is its exact count of distinct visitors.
 */
export function partnerVisitorCounts(conn: Conn, workspaces: readonly { id: string; since: string }[], before: string): Promise<PartnerVisitorCount[]> {
  if (workspaces.length === 0) return Promise.resolve([]);
  const list = JSON.stringify(workspaces);
  // The earliest `since` as a constant too: the partitions and index ranges outside it are never read, whatever the join.
  const from = workspaces.reduce((min, w) => (w.since < min ? w.since : min), workspaces[0]!.since);
  return rows<PartnerVisitorCount>(
    conn,
    sql`SELECT c.workspace_id AS "workspaceId", c.partner_id AS "partnerId", to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
          c.country, count(*)::int AS visitors
        FROM jsonb_to_recordset(${list}::jsonb) AS w(id uuid, since timestamptz)
        JOIN clicks c ON c.workspace_id = w.id AND c.created_at >= w.since
        WHERE c.created_at >= ${from}::timestamptz AND c.created_at < ${before}::timestamptz
          AND c.visitor_flags & ${sql.raw(String(FIRST_FOR_PARTNER))} <> 0 AND NOT c.bot AND c.partner_id IS NOT NULL AND c.trigger <> 'coupon'
        GROUP BY 1, 2, 3, 4
        ORDER BY 1, 2, 3, 4`,
  );
}
