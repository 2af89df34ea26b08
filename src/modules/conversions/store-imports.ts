import { randomInt } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { inList, rows, type Conn } from '../../db/connect.js';
import { isoTimestamp, type IdHolder } from '../../db/resource-table.js';
import { ROLLUP_SLOTS } from '../analytics/service.js';
import { eventKeys, linkDaysOfEvents, linkRevenueOfSales } from './event-rollups.js';

/**
 * Leads and sales an import brings (operations.md §13), a whole batch per statement: each event
 * takes its dimensions as tracking does (a sale its lead's, else its click's; a lead its click's)
 * from what is stored here already, and is added to `analytics_rollups` and a sale to
 * `analytics_revenue_rollups` too (the analytics module's tables, written here as tracking writes
 * them: the events and their counts together or not at all). An event whose id is stored
 * already is skipped and counted once.
 */

export interface ImportedLeadRow {
  id: string;
  eventName: string;
  clickId: string;
  linkId: string;
  customerId: string;
  metadata: Record<string, unknown> | null;
  createdAt: string;
}

export interface ImportedSaleRow extends ImportedLeadRow {
  amount: number;
  currency: string;
  leadId: string | null;
  refundedAmount: number;
}

const DIMENSIONS = [
  'partner_id',
  'country',
  'device',
  'browser',
  'os',
  'referrer',
  'referrer_url',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'trigger',
  'region',
  'city',
  'test_id',
  'variant',
];
const DIMENSION_LIST = sql.raw(DIMENSIONS.join(', '));
const D_DIMENSIONS = sql.raw(DIMENSIONS.map((d) => `d.${d}`).join(', '));

export function eventHolders(conn: Conn, workspaceId: string, kind: 'lead' | 'sale', ids: string[]): Promise<IdHolder[]> {
  if (ids.length === 0) return Promise.resolve([]);
  const table = sql.raw(kind === 'lead' ? 'lead_events' : 'sale_events');
  return rows<IdHolder>(conn, sql`SELECT id, workspace_id = ${workspaceId}::uuid AS mine, true AS live FROM ${table} WHERE id ${inList(ids, 'uuid')}`);
}

/** Where an event's dimensions come from: its lead (a sale), else its click; none found, all null. */
function dimensionsOf(workspaceId: string, withLead: boolean): SQL {
  const lead = withLead
    ? sql`(SELECT 0 AS pri, ${DIMENSION_LIST} FROM lead_events WHERE id = x."leadId" AND workspace_id = ${workspaceId}::uuid) UNION ALL `
    : sql``;
  return sql`LEFT JOIN LATERAL (SELECT * FROM (${lead}(SELECT 1 AS pri, ${DIMENSION_LIST} FROM clicks
      WHERE id = x."clickId" AND workspace_id = ${workspaceId}::uuid LIMIT 1)) u ORDER BY pri LIMIT 1) d ON true`;
}

/** The rollup rows of the inserted events `ev`, grouped first (one statement may add to a row only once), in key order. */
function rollupsOf(counts: SQL, conflict: SQL, slot: number): SQL {
  return sql`INSERT INTO analytics_rollups AS r (workspace_id, scope_id, dim, level, bucket, value, partner_id, slot, clicks, leads, sales, amount)
    SELECT s.* FROM (
      SELECT ev.workspace_id, k.scope_id, k.dim, k.level, analytics_bucket(k.level, ev.created_at) AS bucket, k.value, k.partner_id,
        ${slot}::smallint AS slot, ${counts}
      ${eventKeys()}
      GROUP BY 1, 2, 3, 4, 5, 6, 7) s
    ORDER BY s.workspace_id, s.scope_id, s.dim COLLATE "C", s.level, s.bucket, s.value COLLATE "C", s.partner_id
    ON CONFLICT (workspace_id, scope_id, dim, level, bucket, value, partner_id, slot) DO UPDATE SET ${conflict}
    RETURNING 1`;
}

/** The inserted sales `ev` in their currencies (analytics_revenue_rollups, migration 0018), grouped and in key order as above. */
function revenueOf(slot: number): SQL {
  return sql`INSERT INTO analytics_revenue_rollups AS r (workspace_id, scope_id, dim, level, bucket, value, partner_id, currency, slot, sales, amount, refunded)
    SELECT s.* FROM (
      SELECT ev.workspace_id, k.scope_id, k.dim, k.level, analytics_bucket(k.level, ev.created_at) AS bucket, k.value, k.partner_id, ev.currency,
        ${slot}::smallint AS slot, count(*) AS sales, sum(ev.amount - ev.refunded_amount) AS amount, sum(ev.refunded_amount) AS refunded
      ${eventKeys('ru')}
      GROUP BY 1, 2, 3, 4, 5, 6, 7, 8) s
    ORDER BY s.workspace_id, s.scope_id, s.dim COLLATE "C", s.level, s.bucket, s.value COLLATE "C", s.partner_id, s.currency
    ON CONFLICT (workspace_id, scope_id, dim, level, bucket, value, partner_id, currency, slot)
    DO UPDATE SET sales = r.sales + EXCLUDED.sales, amount = r.amount + EXCLUDED.amount, refunded = r.refunded + EXCLUDED.refunded
    RETURNING 1`;
}

const asJson = <T extends { metadata: unknown }>(events: T[]) => JSON.stringify(events.map((e, ord) => ({ ...e, ord })));

/** Inserts leads with their rollups; how many were new. */
export async function insertImportedLeads(conn: Conn, workspaceId: string, leads: ImportedLeadRow[]): Promise<number> {
  if (leads.length === 0) return 0;
  const slot = randomInt(ROLLUP_SLOTS);
  const [row] = await rows<{ n: number }>(
    conn,
    sql`WITH x AS (SELECT * FROM jsonb_to_recordset(${asJson(leads)}::jsonb) AS x(id uuid, "eventName" text, "clickId" uuid,
          "linkId" uuid, "customerId" uuid, metadata jsonb, "createdAt" timestamptz, ord int)),
      ev AS (
        INSERT INTO lead_events (id, workspace_id, event_name, click_id, link_id, customer_id, metadata, created_at, source, ${DIMENSION_LIST})
        SELECT x.id, ${workspaceId}::uuid, x."eventName", x."clickId", x."linkId", x."customerId", NULLIF(x.metadata, 'null'::jsonb), x."createdAt", 'import', ${D_DIMENSIONS}
        FROM x ${dimensionsOf(workspaceId, false)} ORDER BY x.ord
        ON CONFLICT (id) DO NOTHING RETURNING *),
      ru AS (${rollupsOf(sql`0 AS clicks, count(*) AS leads, 0 AS sales, 0 AS amount`, sql`leads = r.leads + EXCLUDED.leads`, slot)}),
      ld AS (${linkDaysOfEvents(1, 0, 'ru', slot)})
      SELECT count(*)::int AS n FROM ev`,
  );
  return Number(row?.n ?? 0);
}

/** Inserts sales (refunds included: analytics count amount − refundedAmount) with their rollups; how many were new. */
export async function insertImportedSales(conn: Conn, workspaceId: string, sales: ImportedSaleRow[]): Promise<number> {
  if (sales.length === 0) return 0;
  const slot = randomInt(ROLLUP_SLOTS);
  const [row] = await rows<{ n: number }>(
    conn,
    sql`WITH x AS (SELECT * FROM jsonb_to_recordset(${asJson(sales)}::jsonb) AS x(id uuid, "eventName" text, "clickId" uuid,
          "linkId" uuid, "customerId" uuid, metadata jsonb, "createdAt" timestamptz, amount bigint, currency text, "leadId" uuid,
          "refundedAmount" bigint, ord int)),
      ev AS (
        INSERT INTO sale_events (id, workspace_id, event_name, amount, currency, click_id, link_id, lead_id, customer_id, metadata,
          refunded_amount, created_at, source, ${DIMENSION_LIST})
        SELECT x.id, ${workspaceId}::uuid, x."eventName", x.amount, x.currency, x."clickId", x."linkId", x."leadId", x."customerId",
          NULLIF(x.metadata, 'null'::jsonb), LEAST(x."refundedAmount", x.amount), x."createdAt", 'import', ${D_DIMENSIONS}
        FROM x ${dimensionsOf(workspaceId, true)} ORDER BY x.ord
        ON CONFLICT (id) DO NOTHING RETURNING *),
      ru AS (${rollupsOf(sql`0 AS clicks, 0 AS leads, count(*) AS sales, sum(ev.amount - ev.refunded_amount) AS amount`, sql`sales = r.sales + EXCLUDED.sales, amount = r.amount + EXCLUDED.amount`, slot)}),
      rm AS (${revenueOf(slot)}),
      ld AS (${linkDaysOfEvents(0, 1, 'rm', slot)}),
      lm AS (${linkRevenueOfSales(sql`amount - refunded_amount`, sql`refunded_amount`, 'ld', slot)})
      SELECT count(*)::int AS n FROM ev`,
  );
  return Number(row?.n ?? 0);
}

/** The refunded amounts of this workspace's sales with these ids. */
export async function saleRefunds(conn: Conn, workspaceId: string, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const found = await rows<{ id: string; refunded: number }>(
    conn,
    sql`SELECT id, refunded_amount::float8 AS refunded FROM sale_events WHERE workspace_id = ${workspaceId}::uuid AND id ${inList(ids, 'uuid')}`,
  );
  return new Map(found.map((r) => [r.id, Number(r.refunded)]));
}

/** When the customer's earliest lead of this name, attributed to this partner, was dated (null: none), as a scalar query of another statement. */
export function earliestPartnerLeadSql(workspaceId: string, customerId: string | SQL, partnerId: string | SQL, eventName: string): SQL {
  const uuid = (v: string | SQL) => (typeof v === 'string' ? sql`${v}::uuid` : v);
  return sql`SELECT ${sql.raw(isoTimestamp('min(created_at)'))} FROM lead_events
        WHERE workspace_id = ${workspaceId}::uuid AND customer_id = ${uuid(customerId)} AND partner_id = ${uuid(partnerId)} AND event_name = ${eventName}`;
}
