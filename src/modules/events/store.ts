import { sql, type SQL } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';

export type EventType = 'lead' | 'sale';

export interface EventFilter {
  workspaceId: string;
  id?: string;
  type?: EventType;
  linkId?: string;
  customerId?: string;
  customerExternalId?: string;
  start?: Date;
  end?: Date;
  /** The end bound is excluded (a date-only endDate: before the next day starts). */
  endExclusive?: boolean;
}

export interface EventPage {
  take: number;
  skip: number;
  sort: 'asc' | 'desc';
}

/** A lead or a sale as GET /api/events lists it; the sale-only fields are null on leads. */
export interface EventRecord {
  type: EventType;
  id: string;
  eventName: string;
  linkId: string;
  clickId: string;
  customerId: string;
  customerExternalId: string;
  leadId: string | null;
  amount: number | null;
  /** Sales: how much of the amount was refunded (operations.md §12); leads: null. */
  refundedAmount: number | null;
  currency: string | null;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  /** The link's short id and title, null when the link is gone; the service turns the id into shortUrl. */
  linkShortId: string | null;
  linkTitle: string | null;
  customerName: string | null;
  customerEmail: string | null;
  /** Where it was reported from: server, client (a browser), stripe, import. */
  source: string;
}

function eventWhere(alias: 'l' | 's', f: EventFilter): SQL {
  const a = sql.raw(alias);
  const parts = [sql`${a}.workspace_id = ${f.workspaceId}::uuid`];
  if (f.id) parts.push(sql`${a}.id = ${f.id}::uuid`);
  if (f.linkId) parts.push(sql`${a}.link_id = ${f.linkId}::uuid`);
  if (f.customerId) parts.push(sql`${a}.customer_id = ${f.customerId}::uuid`);
  if (f.customerExternalId !== undefined) {
    // Every customer that ever had the id (a deleted one's events stay), of this workspace only.
    parts.push(
      sql`${a}.customer_id IN (SELECT k.id FROM customers k WHERE k.workspace_id = ${f.workspaceId}::uuid AND k.external_id = ${f.customerExternalId})`,
    );
  }
  if (f.start) parts.push(sql`${a}.created_at >= ${f.start.toISOString()}::timestamptz`);
  if (f.end) {
    parts.push(f.endExclusive ? sql`${a}.created_at < ${f.end.toISOString()}::timestamptz` : sql`${a}.created_at <= ${f.end.toISOString()}::timestamptz`);
  }
  return sql.join(parts, sql` AND `);
}

/** Where a keyset page of events starts: after this (created_at, kind, seq), in the page's order. */
export interface EventCursor {
  /** created_at as the database wrote it as text (exact to the microsecond, with its offset). */
  at: string;
  /** 0 a lead, 1 a sale. */
  kind: number;
  seq: number;
}

/**
 * Leads and sales as one list, in one statement. The order is total, so skip/take paging
 * visits every event exactly once: createdAt, then kind (leads before sales at the same
 * instant), then insertion order (`seq`); desc is exactly asc reversed. Each table's branch is
 * cut to skip + take rows in that same order (its own top rows are all the merge can use), so
 * it walks the (workspace_id, created_at) index and stops early; customers are joined to the
 * final page only. customers and links are other modules' tables, joined here rather than read
 * through their services so that a page stays one statement.
 */
export async function listEvents(conn: Conn, f: EventFilter, p: EventPage): Promise<EventRecord[]> {
  return (await selectEvents(conn, f, p, undefined, false)).records;
}

/**
 * A page of events after a cursor (keyset, not OFFSET), in the order of listEvents, with the
 * cursor of its last row. The first page may still skip rows (a CSV export's `skip`).
 */
export function eventPage(conn: Conn, f: EventFilter, p: EventPage, after: EventCursor | undefined): Promise<{ records: EventRecord[]; next?: EventCursor }> {
  return selectEvents(conn, f, p, after, true);
}

async function selectEvents(
  conn: Conn,
  f: EventFilter,
  p: EventPage,
  after: EventCursor | undefined,
  withCursor: boolean,
): Promise<{ records: EventRecord[]; next?: EventCursor }> {
  const dir = sql.raw(p.sort === 'asc' ? 'ASC' : 'DESC');
  const reach = p.skip + p.take;
  const from = (a: 'l' | 's', kind: number) =>
    after
      ? sql` AND (${sql.raw(a)}.created_at, ${kind}::int, ${sql.raw(a)}.seq) ${sql.raw(p.sort === 'asc' ? '>' : '<')} (${after.at}::timestamptz, ${after.kind}::int, ${after.seq}::bigint)`
      : sql``;
  const lead = sql`(SELECT 0 AS kind, l.id, l.event_name, l.link_id, l.click_id, l.customer_id, NULL::uuid AS lead_id,
        NULL::bigint AS amount, NULL::bigint AS refunded_amount, NULL::text AS currency, l.metadata, l.created_at, l.seq, l.source
      FROM lead_events l WHERE ${eventWhere('l', f)}${from('l', 0)} ORDER BY l.created_at ${dir}, l.seq ${dir} LIMIT ${reach}::bigint)`;
  const sale = sql`(SELECT 1 AS kind, s.id, s.event_name, s.link_id, s.click_id, s.customer_id, s.lead_id,
        s.amount, s.refunded_amount, s.currency, s.metadata, s.created_at, s.seq, s.source
      FROM sale_events s WHERE ${eventWhere('s', f)}${from('s', 1)} ORDER BY s.created_at ${dir}, s.seq ${dir} LIMIT ${reach}::bigint)`;
  const branches = f.type === 'lead' ? [lead] : f.type === 'sale' ? [sale] : [lead, sale];
  const order = sql`e.created_at ${dir}, e.kind ${dir}, e.seq ${dir}`;
  const cursor = withCursor ? sql`, e.created_at::text AS "cursorAt", e.kind AS "cursorKind", e.seq AS "cursorSeq"` : sql``;
  const found = await rows<EventRecord & { cursorAt?: string; cursorKind?: number; cursorSeq?: string | number }>(
    conn,
    sql`SELECT CASE e.kind WHEN 0 THEN 'lead' ELSE 'sale' END AS type, e.id, e.event_name AS "eventName", e.link_id AS "linkId",
          e.click_id AS "clickId", e.customer_id AS "customerId", c.external_id AS "customerExternalId", e.lead_id AS "leadId",
          e.amount::float8 AS amount, e.refunded_amount::float8 AS "refundedAmount", e.currency, e.metadata, ${sql.raw(isoTimestamp('e.created_at'))} AS "createdAt",
          k.short_id AS "linkShortId", k.title AS "linkTitle", c.name AS "customerName", c.email AS "customerEmail", e.source${cursor}
        FROM (SELECT * FROM (${sql.join(branches, sql` UNION ALL `)}) u ORDER BY u.created_at ${dir}, u.kind ${dir}, u.seq ${dir}
              LIMIT ${p.take} OFFSET ${p.skip}::bigint) e
        JOIN customers c ON c.id = e.customer_id AND c.workspace_id = ${f.workspaceId}::uuid
        LEFT JOIN links k ON k.id = e.link_id AND k.workspace_id = ${f.workspaceId}::uuid
        ORDER BY ${order}`,
  );
  if (!withCursor) return { records: found };
  const last = found.at(-1);
  const records = found.map(({ cursorAt: _a, cursorKind: _k, cursorSeq: _s, ...r }) => r);
  return { records, next: last && { at: last.cursorAt!, kind: Number(last.cursorKind), seq: Number(last.cursorSeq) } };
}
