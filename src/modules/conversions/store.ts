import { sql } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';
import { CUSTOMER_COLUMNS, type CustomerRow } from '../customers/store.js';

export interface ClickRef {
  linkId: string;
}

/** The workspace's click with this id; another workspace's click is not found, like an unknown one. */
export async function findClick(conn: Conn, workspaceId: string, clickId: string): Promise<ClickRef | undefined> {
  const [row] = await rows<ClickRef>(
    conn,
    sql`SELECT link_id AS "linkId" FROM clicks WHERE id = ${clickId}::uuid AND workspace_id = ${workspaceId}::uuid LIMIT 1`,
  );
  return row;
}

export interface LeadRef {
  id: string;
  clickId: string;
  linkId: string;
}

/** The most recent lead of the active customer with this external id (optionally of one event name). */
export async function latestLead(conn: Conn, workspaceId: string, customerExternalId: string, eventName?: string): Promise<LeadRef | undefined> {
  const byName = eventName === undefined ? sql`` : sql` AND l.event_name = ${eventName}`;
  const [row] = await rows<LeadRef>(
    conn,
    sql`SELECT l.id, l.click_id AS "clickId", l.link_id AS "linkId"
        FROM customers c JOIN lead_events l ON l.customer_id = c.id
        WHERE c.workspace_id = ${workspaceId} AND c.external_id = ${customerExternalId} AND c.deleted_at IS NULL${byName}
        ORDER BY l.seq DESC LIMIT 1`,
  );
  return row;
}

export interface CustomerInput {
  externalId: string;
  name: string;
  /** undefined keeps the stored value; null clears it. */
  email?: string | null;
  avatar?: string | null;
}

/**
 * Upserts the active customer (the partial unique index is the conflict target), but only
 * when the event's link is known (`src.link_id`): an unknown click writes nothing.
 */
function upsertCustomerSql(workspaceId: string, customerId: string, c: CustomerInput) {
  return sql`INSERT INTO customers AS c (id, workspace_id, external_id, name, email, avatar)
      SELECT ${customerId}::uuid, ${workspaceId}::uuid, ${c.externalId}::text, ${c.name}::text, ${c.email ?? null}::text, ${c.avatar ?? null}::text
      FROM src WHERE src.link_id IS NOT NULL
      ON CONFLICT (workspace_id, external_id) WHERE deleted_at IS NULL DO UPDATE SET
        name = EXCLUDED.name,
        email = ${c.email === undefined ? sql`c.email` : sql`EXCLUDED.email`},
        avatar = ${c.avatar === undefined ? sql`c.avatar` : sql`EXCLUDED.avatar`},
        updated_at = now()
      RETURNING c.*`;
}

/** The event's link: given, or looked up from the click in the same statement. */
function linkSourceSql(workspaceId: string, clickId: string, linkId: string | null) {
  return linkId
    ? sql`SELECT ${linkId}::uuid AS link_id`
    : sql`SELECT (SELECT k.link_id FROM clicks k WHERE k.id = ${clickId}::uuid AND k.workspace_id = ${workspaceId}::uuid LIMIT 1) AS link_id`;
}

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

export interface EventRow {
  id: string;
  eventName: string;
  clickId: string;
  linkId: string;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  customer: CustomerRow;
}

export interface SaleRow extends EventRow {
  amount: number;
  currency: string;
  leadId: string | null;
}

/**
 * Click lookup, customer upsert and event insert in one statement: one round trip per tracked
 * event. With `linkId` null the link comes from the click; no such click → undefined, nothing written.
 */
export async function recordLead(
  conn: Conn,
  e: { id: string; workspaceId: string; customerId: string; eventName: string; clickId: string; linkId: string | null; metadata: unknown; customer: CustomerInput },
): Promise<EventRow | undefined> {
  const [row] = await rows<EventRow>(
    conn,
    sql`WITH src AS (${linkSourceSql(e.workspaceId, e.clickId, e.linkId)}),
      c AS (${upsertCustomerSql(e.workspaceId, e.customerId, e.customer)}),
      ev AS (
        INSERT INTO lead_events (id, workspace_id, event_name, click_id, link_id, customer_id, metadata)
        SELECT ${e.id}::uuid, ${e.workspaceId}::uuid, ${e.eventName}::text, ${e.clickId}::uuid, src.link_id, c.id, ${json(e.metadata)}::jsonb
        FROM c, src
        RETURNING *)
      SELECT ev.id, ev.event_name AS "eventName", ev.click_id AS "clickId", ev.link_id AS "linkId", ev.metadata,
        ${sql.raw(isoTimestamp('ev.created_at'))} AS "createdAt",
        (SELECT row_to_json(x) FROM (SELECT ${sql.raw(CUSTOMER_COLUMNS)} FROM c) x) AS customer
      FROM ev`,
  );
  return row;
}

export async function recordSale(
  conn: Conn,
  e: {
    id: string;
    workspaceId: string;
    customerId: string;
    eventName: string;
    amount: number;
    currency: string;
    clickId: string;
    linkId: string | null;
    leadId: string | null;
    metadata: unknown;
    customer: CustomerInput;
  },
): Promise<SaleRow | undefined> {
  const [row] = await rows<SaleRow>(
    conn,
    sql`WITH src AS (${linkSourceSql(e.workspaceId, e.clickId, e.linkId)}),
      c AS (${upsertCustomerSql(e.workspaceId, e.customerId, e.customer)}),
      ev AS (
        INSERT INTO sale_events (id, workspace_id, event_name, amount, currency, click_id, link_id, lead_id, customer_id, metadata)
        SELECT ${e.id}::uuid, ${e.workspaceId}::uuid, ${e.eventName}::text, ${e.amount}::bigint, ${e.currency}::text, ${e.clickId}::uuid,
          src.link_id, ${e.leadId}::uuid, c.id, ${json(e.metadata)}::jsonb
        FROM c, src
        RETURNING *)
      SELECT ev.id, ev.event_name AS "eventName", ev.amount::float8 AS amount, ev.currency, ev.click_id AS "clickId",
        ev.link_id AS "linkId", ev.lead_id AS "leadId", ev.metadata, ${sql.raw(isoTimestamp('ev.created_at'))} AS "createdAt",
        (SELECT row_to_json(x) FROM (SELECT ${sql.raw(CUSTOMER_COLUMNS)} FROM c) x) AS customer
      FROM ev`,
  );
  return row;
}
