import { sql } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';

export interface PayoutRow {
  id: string;
  status: 'pending' | 'completed' | 'cancelled';
  currency: string;
  method: string | null;
  /** Decimal string: a sum, exact past 2^53. */
  total: string;
  skipped: { partnerId: string; reason: string }[];
  reference: string | null;
  failedPartnerIds: string[];
  createdAt: string;
  completedAt: string | null;
}

export interface PayoutItemRow {
  partnerId: string;
  position: number;
  amount: string;
  method: string | null;
  destination: string | null;
  detailsChangedAt: string | null;
}

const PAYOUT = sql.raw(`p.id, p.status, p.currency, p.method, p.total::text AS total, p.skipped, p.reference, p.failed_partner_ids AS "failedPartnerIds",
  ${isoTimestamp('p.created_at')} AS "createdAt", ${isoTimestamp('p.completed_at')} AS "completedAt"`);

/** The payout row first: a second pending one in the currency breaks payouts_one_pending (the caller's 409). */
export async function insertPayout(
  conn: Conn,
  p: { id: string; workspaceId: string; currency: string; method: string | null; skipped: unknown[] },
): Promise<void> {
  await conn.execute(
    sql`INSERT INTO payouts (id, workspace_id, status, currency, method, total, skipped)
        VALUES (${p.id}::uuid, ${p.workspaceId}::uuid, 'pending', ${p.currency}, ${p.method}, 0, ${JSON.stringify(p.skipped)}::jsonb)`,
  );
}

/** The items, frozen, and the payout's total from them (one statement). */
export async function insertItems(
  conn: Conn,
  payoutId: string,
  items: (Omit<PayoutItemRow, 'position'> & { count: number })[],
  skipped: unknown[],
): Promise<void> {
  const data = JSON.stringify(items.map((item, position) => ({ ...item, position })));
  await conn.execute(
    sql`WITH d AS (SELECT * FROM jsonb_to_recordset(${data}::jsonb) AS d("partnerId" uuid, position int, amount numeric, count int, method text, destination text, "detailsChangedAt" timestamptz)),
      i AS (INSERT INTO payout_items (payout_id, partner_id, position, amount, commission_count, method, destination, details_changed_at)
            SELECT ${payoutId}::uuid, d."partnerId", d.position, d.amount, d.count, d.method, d.destination, d."detailsChangedAt" FROM d RETURNING amount)
      UPDATE payouts SET total = (SELECT coalesce(sum(amount), 0) FROM i), skipped = ${JSON.stringify(skipped)}::jsonb WHERE id = ${payoutId}::uuid`,
  );
}

export async function payoutRow(conn: Conn, workspaceId: string, id: string): Promise<PayoutRow | undefined> {
  const [row] = await rows<PayoutRow>(conn, sql`SELECT ${PAYOUT} FROM payouts p WHERE p.workspace_id = ${workspaceId}::uuid AND p.id = ${id}::uuid`);
  return row;
}

export function listPayoutRows(
  conn: Conn,
  workspaceId: string,
  q: { take: number; skip: number; sort: 'asc' | 'desc'; status?: string; currency?: string },
): Promise<PayoutRow[]> {
  const dir = sql.raw(q.sort === 'asc' ? 'ASC' : 'DESC');
  const status = q.status ? sql` AND p.status = ${q.status}` : sql``;
  const currency = q.currency ? sql` AND p.currency = ${q.currency}` : sql``;
  return rows<PayoutRow>(
    conn,
    sql`SELECT ${PAYOUT} FROM payouts p WHERE p.workspace_id = ${workspaceId}::uuid${status}${currency}
        ORDER BY p.created_at ${dir}, p.seq ${dir} LIMIT ${q.take} OFFSET ${q.skip}`,
  );
}

/** A page of a payout's items in their order, after position `after`. */
export function itemRows(conn: Conn, payoutId: string, after: number, limit: number, method?: string): Promise<PayoutItemRow[]> {
  const byMethod = method ? sql` AND method = ${method}` : sql``;
  return rows<PayoutItemRow>(
    conn,
    sql`SELECT partner_id AS "partnerId", position, amount::text AS amount, method, destination, ${sql.raw(isoTimestamp('details_changed_at'))} AS "detailsChangedAt"
        FROM payout_items WHERE payout_id = ${payoutId}::uuid AND position > ${after}${byMethod} ORDER BY position LIMIT ${limit}`,
  );
}

export async function countItems(conn: Conn, payoutId: string, method?: string): Promise<number> {
  const byMethod = method ? sql` AND method = ${method}` : sql``;
  const [row] = await rows<{ n: number }>(conn, sql`SELECT count(*)::int AS n FROM payout_items WHERE payout_id = ${payoutId}::uuid${byMethod}`);
  return row!.n;
}

/** Ends a pending payout (one conditional update): undefined when it was not pending. */
export async function endPayout(
  conn: Conn,
  workspaceId: string,
  id: string,
  end: { status: 'completed' | 'cancelled'; reference?: string | null; failed?: string[] },
): Promise<PayoutRow | undefined> {
  const [row] = await rows<PayoutRow>(
    conn,
    sql`WITH p AS (
          UPDATE payouts SET status = ${end.status}, reference = ${end.reference ?? null}, failed_partner_ids = ${`{${(end.failed ?? []).join(',')}}`}::uuid[],
            completed_at = CASE WHEN ${end.status} = 'completed' THEN now() END, updated_at = now()
          WHERE workspace_id = ${workspaceId}::uuid AND id = ${id}::uuid AND status = 'pending' RETURNING *)
        SELECT ${PAYOUT} FROM p`,
  );
  return row;
}

export interface PartnerPayoutRow {
  id: string;
  status: 'pending' | 'completed' | 'cancelled' | 'failed';
  currency: string;
  amount: string;
  method: string | null;
  destination: string | null;
  createdAt: string;
  completedAt: string | null;
}

/** One partner's items of the workspace's payouts, newest first; `failed` where the provider could not pay them. */
export function partnerPayoutRows(
  conn: Conn,
  workspaceId: string,
  partnerId: string,
  q: { take: number; skip: number; sort: 'asc' | 'desc' },
): Promise<PartnerPayoutRow[]> {
  const dir = sql.raw(q.sort === 'asc' ? 'ASC' : 'DESC');
  return rows<PartnerPayoutRow>(
    conn,
    sql`SELECT p.id, CASE WHEN i.partner_id = ANY (p.failed_partner_ids) THEN 'failed' ELSE p.status END AS status, p.currency,
          i.amount::text AS amount, i.method, i.destination, ${sql.raw(isoTimestamp('p.created_at'))} AS "createdAt",
          ${sql.raw(isoTimestamp('p.completed_at'))} AS "completedAt"
        FROM payout_items i JOIN payouts p ON p.id = i.payout_id
        WHERE i.partner_id = ${partnerId}::uuid AND p.workspace_id = ${workspaceId}::uuid
        ORDER BY p.created_at ${dir}, p.seq ${dir} LIMIT ${q.take} OFFSET ${q.skip}`,
  );
}

/** Whether the partner has an item in a pending payout (their payout details cannot change meanwhile). */
export async function inPendingPayout(conn: Conn, workspaceId: string, partnerId: string): Promise<boolean> {
  const found = await rows(
    conn,
    sql`SELECT 1 FROM payout_items i JOIN payouts p ON p.id = i.payout_id
        WHERE i.partner_id = ${partnerId}::uuid AND p.workspace_id = ${workspaceId}::uuid AND p.status = 'pending' LIMIT 1`,
  );
  return found.length > 0;
}
