import { sql, type SQL } from 'drizzle-orm';
import { inList, preparedRows, rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';
import { CLAIMED_BY, CLAIMED_BY_SQL, guardFromClaims, inPayoutSql } from './payout-claims.js';

export type CommissionType = 'click' | 'lead' | 'sale' | 'custom';
export type StoredStatus = 'pending' | 'held' | 'reversed' | 'paid';
export type CommissionStatus = StoredStatus | 'payable';

export interface CommissionRow {
  id: string;
  partnerId: string;
  type: CommissionType;
  linkId: string | null;
  customerId: string | null;
  eventId: string | null;
  saleAmount: number | null;
  currency: string;
  earnings: number;
  status: CommissionStatus;
  holdReasons: string[];
  reversedReason: string | null;
  adjustment: number | null;
  payoutId: string | null;
  description: string | null;
  createdAt: string;
  payableAt: string;
  updatedAt: string;
}

/** `payable` is derived: a pending commission past its payableAt by the database's clock. */
export const STATUS_SQL = `CASE WHEN c.status = 'pending' AND c.payable_at <= now() THEN 'payable' ELSE c.status END`;

const SELECTION = sql.raw(`c.id, c.partner_id AS "partnerId", c.type, c.link_id AS "linkId", c.customer_id AS "customerId", c.event_id AS "eventId",
  c.sale_amount::float8 AS "saleAmount", c.currency, c.earnings::float8 AS earnings, ${STATUS_SQL} AS status, c.hold_reasons AS "holdReasons",
  c.reversed_reason AS "reversedReason", c.adjustment::float8 AS adjustment, ${CLAIMED_BY_SQL} AS "payoutId", c.description,
  ${isoTimestamp('c.created_at')} AS "createdAt", ${isoTimestamp('c.payable_at')} AS "payableAt", ${isoTimestamp('c.updated_at')} AS "updatedAt"`);

export interface NewCommission {
  id: string;
  workspaceId: string;
  partnerId: string;
  type: CommissionType;
  linkId: string | null;
  customerId: string | null;
  eventId: string | null;
  saleAmount: number | null;
  currency: string;
  earnings: number;
  status: 'pending' | 'held' | 'reversed';
  holdReasons: string[];
  reversedReason: string | null;
  description: string | null;
  /** The event's time (the commission's createdAt), and the days it waits before it is payable. */
  at: string | null;
  holdingDays: number;
  /** A click commission's UTC day (YYYY-MM-DD): one per partner and day. */
  clickDay?: string;
}

/**
 * Inserts commissions; one whose event (or, for a lead, whose customer; for a click commission,
 * whose partner and day) already earned is left out by the unique indexes, so a replay writes
 * nothing twice. The rows written. `alongside`: more WITH queries (data-modifying ones of the
 * caller's) run in the same statement, whether or not a row is left out.
 */
export async function insertCommissions(conn: Conn, list: NewCommission[], alongside?: SQL): Promise<CommissionRow[]> {
  if (list.length === 0) return [];
  // One parameter whatever the count (a statement of 10,000 VALUES rows is too deep for the query builder).
  const data = JSON.stringify(list.map((c, position) => ({ ...c, position })));
  const written = await preparedRows<CommissionRow & { position: number }>(
    conn,
    sql`WITH d AS (
          SELECT * FROM jsonb_to_recordset(${data}::jsonb) AS d(id uuid, "workspaceId" uuid, "partnerId" uuid, type text, "linkId" uuid, "customerId" uuid,
            "eventId" uuid, "saleAmount" bigint, currency text, earnings bigint, status text, "holdReasons" text[], "reversedReason" text,
            description text, at timestamptz, "holdingDays" int, "clickDay" date, position int)),
        c AS (
          INSERT INTO commissions (id, workspace_id, partner_id, type, link_id, customer_id, event_id, sale_amount, currency, original_earnings, earnings,
            status, hold_reasons, reversed_reason, description, click_day, created_at, payable_at)
          SELECT d.id, d."workspaceId", d."partnerId", d.type, d."linkId", d."customerId", d."eventId", d."saleAmount", d.currency, d.earnings, d.earnings,
            d.status, d."holdReasons", d."reversedReason", d.description, d."clickDay", coalesce(d.at, now()), coalesce(d.at, now()) + make_interval(days => d."holdingDays")
          FROM d ORDER BY d.position
          ON CONFLICT DO NOTHING
          RETURNING *)${
            alongside
              ? sql`,
        ${alongside}`
              : sql``
          }
        SELECT ${SELECTION}, d.position FROM c JOIN d ON d.id = c.id ORDER BY d.position`,
  );
  return written.map(({ position: _p, ...row }) => row as CommissionRow);
}

export interface CommissionFilter {
  partnerId?: string;
  status?: CommissionStatus;
  type?: CommissionType;
  customerId?: string;
  currency?: string;
  payoutId?: string;
  startDate?: string;
  endDate?: string;
  id?: string;
  ids?: string[];
}

function filterSql(f: CommissionFilter): SQL {
  const parts: SQL[] = [];
  if (f.id) parts.push(sql`c.id = ${f.id}::uuid`);
  if (f.ids) parts.push(sql`c.id ${inList(f.ids, 'uuid')}`);
  if (f.partnerId) parts.push(sql`c.partner_id = ${f.partnerId}::uuid`);
  if (f.type) parts.push(sql`c.type = ${f.type}`);
  if (f.customerId) parts.push(sql`c.customer_id = ${f.customerId}::uuid`);
  if (f.currency) parts.push(sql`c.currency = ${f.currency}`);
  if (f.payoutId) parts.push(inPayoutSql(f.payoutId));
  if (f.startDate) parts.push(sql`c.created_at >= ${f.startDate}::timestamptz`);
  if (f.endDate) parts.push(sql`c.created_at < ${f.endDate}::timestamptz`);
  if (f.status === 'payable') parts.push(sql`c.status = 'pending' AND c.payable_at <= now()`);
  else if (f.status === 'pending') parts.push(sql`c.status = 'pending' AND c.payable_at > now()`);
  else if (f.status) parts.push(sql`c.status = ${f.status}`);
  return parts.length ? sql` AND ${sql.join(parts, sql` AND `)}` : sql``;
}

export function listCommissionRows(
  conn: Conn,
  workspaceId: string,
  f: CommissionFilter & { take: number; skip: number; sort: 'asc' | 'desc' },
): Promise<CommissionRow[]> {
  const dir = sql.raw(f.sort === 'asc' ? 'ASC' : 'DESC');
  return rows<CommissionRow>(
    conn,
    sql`SELECT ${SELECTION} FROM commissions c WHERE c.workspace_id = ${workspaceId}::uuid${filterSql(f)}
        ORDER BY c.created_at ${dir}, c.seq ${dir} LIMIT ${f.take} OFFSET ${f.skip}`,
  );
}

/** The workspace's commissions with these ids, locked for the caller's transaction (and guarded from a payout's claim). */
export async function lockCommissions(conn: Conn, workspaceId: string, ids: string[]): Promise<(CommissionRow & { storedStatus: StoredStatus })[]> {
  await guardFromClaims(conn, workspaceId);
  return rows<CommissionRow & { storedStatus: StoredStatus }>(
    conn,
    sql`SELECT ${SELECTION}, c.status AS "storedStatus" FROM commissions c
        WHERE c.workspace_id = ${workspaceId}::uuid AND c.id ${inList(ids, 'uuid')} ORDER BY c.id FOR UPDATE`,
  );
}

export interface StatusChange {
  id: string;
  status: 'pending' | 'reversed';
  reversedReason: string | null;
  /** Inside a pending payout, a reversal is kept as an adjustment (the payout's items never change). */
  inPayout: boolean;
}

/** Applies checked status changes; the changed rows as the API shows them, in the order given. */
export async function applyStatusChanges(conn: Conn, workspaceId: string, changes: StatusChange[]): Promise<CommissionRow[]> {
  if (changes.length === 0) return [];
  const data = JSON.stringify(changes);
  const changed = await rows<CommissionRow>(
    conn,
    sql`WITH d AS (SELECT * FROM jsonb_to_recordset(${data}::jsonb) AS d(id uuid, status text, "reversedReason" text, "inPayout" boolean)),
      c AS (
        UPDATE commissions c SET
          status = CASE WHEN d."inPayout" THEN c.status ELSE d.status END,
          hold_reasons = CASE WHEN d.status = 'pending' THEN '{}' ELSE c.hold_reasons END,
          reversed_reason = CASE WHEN d.status = 'reversed' THEN d."reversedReason" ELSE c.reversed_reason END,
          adjustment = CASE WHEN d."inPayout" THEN -c.earnings ELSE c.adjustment END,
          updated_at = now()
        FROM d WHERE c.id = d.id AND c.workspace_id = ${workspaceId}::uuid
        RETURNING c.*)
      SELECT ${SELECTION} FROM c`,
  );
  const byId = new Map(changed.map((c) => [c.id, c]));
  return changes.map((c) => byId.get(c.id)!);
}

/** The sale's commission, locked (a refund is recomputing it), and guarded from a payout's claim. */
export async function saleCommission(
  conn: Conn,
  workspaceId: string,
  saleId: string,
): Promise<
  | {
      id: string;
      partnerId: string;
      status: StoredStatus;
      originalEarnings: number;
      earnings: number;
      adjustment: number | null;
      payoutId: string | null;
      currency: string;
      holdingDays?: number;
    }
  | undefined
> {
  await guardFromClaims(conn, workspaceId);
  const [row] = await rows<{
    id: string;
    partnerId: string;
    status: StoredStatus;
    originalEarnings: number;
    earnings: number;
    adjustment: number | null;
    payoutId: string | null;
    currency: string;
  }>(
    conn,
    sql`SELECT id, partner_id AS "partnerId", status, original_earnings::float8 AS "originalEarnings", earnings::float8 AS earnings,
          adjustment::float8 AS adjustment, ${CLAIMED_BY} AS "payoutId", currency
        FROM commissions c WHERE workspace_id = ${workspaceId}::uuid AND event_id = ${saleId}::uuid AND type = 'sale' FOR UPDATE`,
  );
  return row;
}

/** Sets a commission's earnings (and its status and reason when a refund reverses it), or its adjustment inside a pending payout. */
export async function setEarnings(
  conn: Conn,
  id: string,
  change: { earnings?: number; adjustment?: number | null; status?: StoredStatus; reversedReason?: string | null },
): Promise<CommissionRow> {
  const [row] = await rows<CommissionRow>(
    conn,
    sql`WITH c AS (
          UPDATE commissions SET
            earnings = coalesce(${change.earnings ?? null}::bigint, earnings),
            adjustment = ${change.adjustment === undefined ? sql`adjustment` : sql`${change.adjustment}::bigint`},
            status = coalesce(${change.status ?? null}, status),
            reversed_reason = ${change.reversedReason === undefined ? sql`reversed_reason` : sql`${change.reversedReason}`},
            updated_at = now()
          WHERE id = ${id}::uuid RETURNING *)
        SELECT ${SELECTION} FROM c`,
  );
  return row!;
}

/** What custom commissions already took back for a sale's refunds after its commission was paid (≤ 0). */
export async function clawedBack(conn: Conn, workspaceId: string, saleId: string): Promise<number> {
  const [row] = await rows<{ sum: number }>(
    conn,
    sql`SELECT coalesce(sum(earnings), 0)::float8 AS sum FROM commissions WHERE workspace_id = ${workspaceId}::uuid AND event_id = ${saleId}::uuid AND type = 'custom'`,
  );
  return row!.sum;
}
