import { sql, type SQL } from 'drizzle-orm';
import { inList, rows, type Conn } from '../../db/connect.js';
import type { MoneyEntry } from './money.js';
import type { Span } from './periods.js';
import { pageCounts, pageMoney, type LinkCounts } from './store-link-stats.js';

/*
 * Each partner's figures over a span (GET /api/partners?withStats, operations.md §18): the sums
 * of their live links' figures (links.partner_id: the links GET /api/links?partnerId lists), read
 * from the same sources as a page of links' own (store-link-stats.ts), then added up by partner.
 * The links table of the links module is read in the same statement (found by links_partner_idx),
 * as store-groups.ts reads it for names.
 */

/** The partners' live links (id, partner_id), a CTE named pl, and the set of their ids. */
function partnerLinks(workspaceId: string, partnerIds: string[]): { with: SQL; ids: SQL } {
  return {
    with: sql`WITH pl AS (SELECT l.id, l.partner_id FROM links l
      WHERE l.workspace_id = ${workspaceId}::uuid AND l.deleted_at IS NULL AND l.partner_id ${inList(partnerIds, 'uuid')})`,
    ids: sql`IN (SELECT pl.id FROM pl)`,
  };
}

/** The counts of these partners' links over the span, by partner id; a partner with nothing in it is absent. */
export async function partnerCountRows(conn: Conn, workspaceId: string, span: Span | 'empty', partnerIds: string[]): Promise<Map<string, LinkCounts>> {
  if (partnerIds.length === 0 || span === 'empty') return new Map();
  const links = partnerLinks(workspaceId, partnerIds);
  const found = await rows<{ id: string; clicks: string; leads: string; sales: string }>(
    conn,
    sql`${links.with}
      SELECT pl.partner_id AS id, sum(s.clicks)::text AS clicks, sum(s.leads)::text AS leads, sum(s.sales)::text AS sales
      FROM ${pageCounts(workspaceId, span, links.ids)} s JOIN pl ON pl.id = s.link_id GROUP BY pl.partner_id`,
  );
  return new Map(found.map((r) => [r.id, { clicks: Number(r.clicks), leads: Number(r.leads), sales: Number(r.sales) }]));
}

/** The money of these partners' links over the span: per partner, [currency, net, refunded] entries to add up. */
export async function partnerMoney(conn: Conn, workspaceId: string, span: Span | 'empty', partnerIds: string[]): Promise<Map<string, MoneyEntry[]>> {
  const out = new Map<string, MoneyEntry[]>();
  const links = partnerLinks(workspaceId, partnerIds);
  const source = partnerIds.length === 0 ? undefined : pageMoney(workspaceId, span, links.ids);
  if (!source) return out;
  const found = await rows<{ partnerId: string; currency: string; net: string; refunded: string }>(
    conn,
    sql`${links.with}
      SELECT pl.partner_id AS "partnerId", u.currency, sum(u.amount)::text AS net, sum(u.refunded)::text AS refunded
      FROM ${source} JOIN pl ON pl.id = u.link_id GROUP BY 1, 2`,
  );
  for (const r of found) {
    const list = out.get(r.partnerId) ?? [];
    list.push([r.currency, r.net, r.refunded]);
    out.set(r.partnerId, list);
  }
  return out;
}
