import { sql } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';
import type { ListParams } from '../../core/list-params.js';

export interface ConnectionRow {
  id: string;
  workspaceId: string;
  status: 'pending' | 'connected';
  secretSealed: string | null;
  testMode: boolean;
  apiVersion: string;
  connectedAt: string | null;
  createdAt: string;
}

const CONNECTION_COLUMNS = sql.raw(`id, workspace_id AS "workspaceId", status, secret_sealed AS "secretSealed", test_mode AS "testMode",
  api_version AS "apiVersion", ${isoTimestamp('connected_at')} AS "connectedAt", ${isoTimestamp('created_at')} AS "createdAt"`);

/** The workspace's live connection. */
export async function connectionOf(conn: Conn, workspaceId: string): Promise<ConnectionRow | undefined> {
  const [row] = await rows<ConnectionRow>(
    conn,
    sql`SELECT ${CONNECTION_COLUMNS} FROM stripe_connections WHERE workspace_id = ${workspaceId}::uuid AND deleted_at IS NULL`,
  );
  return row;
}

/** The live connection a webhook URL names; `lock` holds it until the transaction ends (its events are handled one at a time). */
export async function connectionById(conn: Conn, id: string, o: { lock?: boolean } = {}): Promise<ConnectionRow | undefined> {
  const [row] = await rows<ConnectionRow>(
    conn,
    sql`SELECT ${CONNECTION_COLUMNS} FROM stripe_connections WHERE id = ${id}::uuid AND deleted_at IS NULL${o.lock ? sql` FOR UPDATE` : sql``}`,
  );
  return row;
}

/** A pending connection; undefined when the workspace already has one (the partial unique index decides, also between instances). */
export async function insertConnection(conn: Conn, c: { id: string; workspaceId: string }): Promise<ConnectionRow | undefined> {
  const [row] = await rows<ConnectionRow>(
    conn,
    sql`INSERT INTO stripe_connections (id, workspace_id, status) VALUES (${c.id}::uuid, ${c.workspaceId}::uuid, 'pending')
        ON CONFLICT (workspace_id) WHERE deleted_at IS NULL DO NOTHING
        RETURNING ${CONNECTION_COLUMNS}`,
  );
  return row;
}

/** Stores the signing secret: the connection is connected from now on (first connection time kept). */
export async function connect(conn: Conn, c: { workspaceId: string; secretSealed: string; testMode: boolean; now: Date }): Promise<ConnectionRow | undefined> {
  const [row] = await rows<ConnectionRow>(
    conn,
    sql`UPDATE stripe_connections SET status = 'connected', secret_sealed = ${c.secretSealed}, test_mode = ${c.testMode},
          connected_at = COALESCE(connected_at, ${c.now.toISOString()}::timestamptz)
        WHERE workspace_id = ${c.workspaceId}::uuid AND deleted_at IS NULL
        RETURNING ${CONNECTION_COLUMNS}`,
  );
  return row;
}

/** Disconnects: the id never names a live connection again, and the secret is forgotten. */
export async function deleteConnection(conn: Conn, workspaceId: string, now: Date): Promise<string | undefined> {
  const [row] = await rows<{ id: string }>(
    conn,
    sql`UPDATE stripe_connections SET deleted_at = ${now.toISOString()}::timestamptz, secret_sealed = NULL
        WHERE workspace_id = ${workspaceId}::uuid AND deleted_at IS NULL RETURNING id`,
  );
  return row?.id;
}

/**
 * Claims a Stripe event id for this connection: true the first time, or when the last claim is
 * more than 30 days old; false for an event id seen within 30 days (a retry or a replay). Both
 * times are the database's: an instance whose clock runs ahead took the others' claims of a
 * minute ago for old ones, and a retry made a second sale.
 */
export async function claimEventId(conn: Conn, connectionId: string, stripeId: string): Promise<boolean> {
  const claimed = await rows(
    conn,
    sql`INSERT INTO stripe_event_ids AS e (connection_id, stripe_id, seen_at) VALUES (${connectionId}::uuid, ${stripeId}, now())
        ON CONFLICT (connection_id, stripe_id) DO UPDATE SET seen_at = EXCLUDED.seen_at
          WHERE e.seen_at < now() - interval '30 days'
        RETURNING 1`,
  );
  return claimed.length === 1;
}

export type Outcome = 'sale' | 'renewal' | 'refund' | 'dispute' | 'duplicate' | 'unattributed' | 'test_mode' | 'ignored';

/** Why an event is unattributed: no customer found, a customer without a lead (or click), no sale for the payment. */
export type UnattributedReason = 'no_customer' | 'no_lead' | 'no_sale';

/** What an event made, as listed. */
export interface Result {
  outcome: Outcome;
  saleId: string | null;
  reason?: UnattributedReason;
}

export interface EventRow {
  id: string;
  stripeId: string;
  type: string;
  livemode: boolean;
  outcome: Outcome;
  saleId: string | null;
  reason: UnattributedReason | null;
  createdAt: string;
}

const EVENT_COLUMNS = sql.raw(
  `id, stripe_id AS "stripeId", type, livemode, outcome, sale_id AS "saleId", reason, ${isoTimestamp('created_at')} AS "createdAt"`,
);

export async function insertEvent(
  conn: Conn,
  e: {
    id: string;
    workspaceId: string;
    connectionId: string;
    stripeId: string;
    type: string;
    livemode: boolean;
    outcome: Outcome;
    saleId: string | null;
    reason?: UnattributedReason;
  },
): Promise<EventRow> {
  const [row] = await rows<EventRow>(
    conn,
    sql`INSERT INTO stripe_events (id, workspace_id, connection_id, stripe_id, type, livemode, outcome, sale_id, reason)
        VALUES (${e.id}::uuid, ${e.workspaceId}::uuid, ${e.connectionId}::uuid, ${e.stripeId}, ${e.type}, ${e.livemode}, ${e.outcome}, ${e.saleId}::uuid,
          ${e.reason ?? null})
        RETURNING ${EVENT_COLUMNS}`,
  );
  return row!;
}

/** The workspace's received events (every connection it had), newest first unless `sort` says otherwise. */
export function listEvents(conn: Conn, workspaceId: string, p: ListParams): Promise<EventRow[]> {
  const dir = sql.raw(p.sort === 'asc' ? 'ASC' : 'DESC');
  const byId = p.id ? sql` AND id = ${p.id}::uuid` : sql``;
  return rows<EventRow>(
    conn,
    sql`SELECT ${EVENT_COLUMNS} FROM stripe_events WHERE workspace_id = ${workspaceId}::uuid${byId}
        ORDER BY created_at ${dir}, seq ${dir} LIMIT ${p.take} OFFSET ${p.skip}`,
  );
}

export interface StripeCustomerRow {
  customerExternalId: string;
  clickId: string | null;
}

/** Remembers which customer a Stripe customer id is (the latest checkout's word wins; a known click is kept when the new one has none). */
export function rememberCustomer(
  conn: Conn,
  c: { workspaceId: string; stripeCustomerId: string; customerExternalId: string; clickId: string | null },
): Promise<void> {
  return rememberCustomers(conn, c.workspaceId, [c]);
}

/** Many at once (an import's referrals), in one statement; a Stripe id given twice keeps its last. */
export async function rememberCustomers(
  conn: Conn,
  workspaceId: string,
  list: { stripeCustomerId: string; customerExternalId: string; clickId: string | null }[],
): Promise<void> {
  const last = [...new Map(list.map((c) => [c.stripeCustomerId, c])).values()];
  if (last.length === 0) return;
  await conn.execute(
    sql`INSERT INTO stripe_customers AS s (workspace_id, stripe_customer_id, customer_external_id, click_id)
        SELECT ${workspaceId}::uuid, d."stripeCustomerId", d."customerExternalId", d."clickId"
        FROM jsonb_to_recordset(${JSON.stringify(last)}::jsonb) AS d("stripeCustomerId" text, "customerExternalId" text, "clickId" uuid)
        ON CONFLICT (workspace_id, stripe_customer_id) DO UPDATE SET customer_external_id = EXCLUDED.customer_external_id,
          click_id = COALESCE(EXCLUDED.click_id, s.click_id), updated_at = now()`,
  );
}

export async function customerOf(conn: Conn, workspaceId: string, stripeCustomerId: string): Promise<StripeCustomerRow | undefined> {
  const [row] = await rows<StripeCustomerRow>(
    conn,
    sql`SELECT customer_external_id AS "customerExternalId", click_id AS "clickId" FROM stripe_customers
        WHERE workspace_id = ${workspaceId}::uuid AND stripe_customer_id = ${stripeCustomerId}`,
  );
  return row;
}

/** Keeps the largest refunded total seen for a payment intent no sale holds yet (Stripe's amount_refunded is cumulative). */
export async function keepPendingRefund(conn: Conn, r: { workspaceId: string; paymentIntentId: string; amountRefunded: number }): Promise<void> {
  await conn.execute(
    sql`INSERT INTO stripe_pending_refunds AS p (workspace_id, payment_intent_id, amount_refunded)
        VALUES (${r.workspaceId}::uuid, ${r.paymentIntentId}, ${r.amountRefunded}::bigint)
        ON CONFLICT (workspace_id, payment_intent_id) DO UPDATE SET amount_refunded = GREATEST(p.amount_refunded, EXCLUDED.amount_refunded), updated_at = now()`,
  );
}

/** The refunded total waiting for this payment intent: 0 when none. */
export async function pendingRefund(conn: Conn, workspaceId: string, paymentIntentId: string): Promise<number> {
  const [row] = await rows<{ amount: number }>(
    conn,
    sql`SELECT amount_refunded::float8 AS amount FROM stripe_pending_refunds WHERE workspace_id = ${workspaceId}::uuid AND payment_intent_id = ${paymentIntentId}`,
  );
  return row?.amount ?? 0;
}

/** Forgets a waiting refund once its sale holds it. */
export async function dropPendingRefund(conn: Conn, workspaceId: string, paymentIntentId: string): Promise<void> {
  await conn.execute(sql`DELETE FROM stripe_pending_refunds WHERE workspace_id = ${workspaceId}::uuid AND payment_intent_id = ${paymentIntentId}`);
}
