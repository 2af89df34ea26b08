import { sql, type SQL } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import type { ListParams } from '../../core/list-params.js';
import { isoTimestamp } from '../../db/resource-table.js';

export interface CreatedByRow {
  type: 'key' | 'user' | 'app';
  id: string;
  userId?: string;
}

export interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  disabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  createdBy: CreatedByRow;
  createdAt: string;
  updatedAt: string;
}

export interface DeliveryRow {
  id: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number | null;
  response: string | null;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  createdAt: string;
}

const raw = (text: string) => sql.raw(text);

// Times as ISO 8601 text: the drivers disagree on what a raw timestamptz becomes.
const ENDPOINT = raw(`e.id, e.url, e.events, e.description, e.disabled, e.disabled_reason AS "disabledReason",
  ${isoTimestamp('e.failing_since')} AS "failingSince", e.created_by AS "createdBy",
  ${isoTimestamp('e.created_at')} AS "createdAt", ${isoTimestamp('e.updated_at')} AS "updatedAt"`);

const live = (workspaceId: string, id: string) => sql`e.workspace_id = ${workspaceId}::uuid AND e.id = ${id}::uuid AND e.deleted_at IS NULL`;

/** created_by is jsonb: PGlite and pg both give it back parsed, but a driver may hand over text. */
function endpointOf(row: EndpointRow): EndpointRow {
  return typeof row.createdBy === 'string' ? { ...row, createdBy: JSON.parse(row.createdBy) as CreatedByRow } : row;
}

/**
 * Serialises endpoint creations of one workspace until the transaction ends, so two at once
 * cannot both pass the limit. A transaction-scoped advisory lock: nothing to clean up.
 */
export async function lockWorkspaceEndpoints(tx: Conn, workspaceId: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`webhook-endpoints:${workspaceId}`}))`);
}

export async function countEndpoints(conn: Conn, workspaceId: string): Promise<number> {
  const [row] = await rows<{ n: number }>(
    conn,
    sql`SELECT count(*)::int AS n FROM webhook_endpoints WHERE workspace_id = ${workspaceId}::uuid AND deleted_at IS NULL`,
  );
  return row?.n ?? 0;
}

/**
 * Inserts an endpoint. One registered by an OAuth app whose grant has already ended (revoked
 * while this request ran) starts disabled: this reads oauth_grants, the oauth module's table,
 * in the same statement, so the grant-end hook and this insert cannot miss each other.
 */
export async function insertEndpoint(
  conn: Conn,
  row: {
    id: string;
    workspaceId: string;
    url: string;
    events: string[];
    description: string | null;
    createdBy: CreatedByRow;
    oauthGrantId: string | null;
    secretSealed: string;
    now: Date;
  },
): Promise<EndpointRow> {
  const ended = row.oauthGrantId ? sql`EXISTS (SELECT 1 FROM oauth_grants g WHERE g.id = ${row.oauthGrantId}::uuid AND g.revoked_at IS NOT NULL)` : sql`false`;
  const [created] = await rows<EndpointRow>(
    conn,
    sql`WITH e AS (
          INSERT INTO webhook_endpoints (id, workspace_id, url, events, description, created_by, oauth_grant_id, secret_sealed,
                                         disabled, disabled_reason, disabled_at, created_at, updated_at)
          SELECT ${row.id}::uuid, ${row.workspaceId}::uuid, ${row.url}, ${`{${row.events.join(',')}}`}::text[], ${row.description},
                 ${JSON.stringify(row.createdBy)}::jsonb, ${row.oauthGrantId}::uuid, ${row.secretSealed},
                 ended, CASE WHEN ended THEN 'grant_ended' END, CASE WHEN ended THEN ${row.now}::timestamptz END,
                 ${row.now}::timestamptz, ${row.now}::timestamptz
          FROM (SELECT ${ended} AS ended) AS g
          RETURNING *)
        SELECT ${ENDPOINT} FROM e`,
  );
  return endpointOf(created!);
}

function pageOf(o: ListParams): SQL {
  const dir = raw(o.sort === 'asc' ? 'ASC' : 'DESC');
  return sql`ORDER BY created_at ${dir}, seq ${dir} LIMIT ${o.take} OFFSET ${o.skip}`;
}

export async function listEndpoints(conn: Conn, workspaceId: string, o: ListParams): Promise<EndpointRow[]> {
  const byId = o.id ? sql` AND e.id = ${o.id}::uuid` : sql``;
  const found = await rows<EndpointRow>(
    conn,
    sql`SELECT ${ENDPOINT} FROM webhook_endpoints e WHERE e.workspace_id = ${workspaceId}::uuid AND e.deleted_at IS NULL${byId} ${pageOf(o)}`,
  );
  return found.map(endpointOf);
}

export async function findEndpoint(conn: Conn, workspaceId: string, id: string): Promise<EndpointRow | undefined> {
  const [row] = await rows<EndpointRow>(conn, sql`SELECT ${ENDPOINT} FROM webhook_endpoints e WHERE ${live(workspaceId, id)}`);
  return row && endpointOf(row);
}

export interface EndpointChange {
  url?: string;
  events?: string[];
  description?: string | null;
  /** true: disabled by hand (a reason already recorded is kept); false: enabled, failing state forgotten. */
  disabled?: boolean;
}

/** Applies a PATCH; undefined when there is no such live endpoint. */
export async function updateEndpoint(conn: Conn, workspaceId: string, id: string, change: EndpointChange, now: Date): Promise<EndpointRow | undefined> {
  const sets: SQL[] = [sql`updated_at = ${now}::timestamptz`];
  if (change.url !== undefined) sets.push(sql`url = ${change.url}`);
  if (change.events !== undefined) sets.push(sql`events = ${`{${change.events.join(',')}}`}::text[]`);
  if (change.description !== undefined) sets.push(sql`description = ${change.description}`);
  if (change.disabled === true) {
    sets.push(sql`disabled = true, disabled_reason = COALESCE(disabled_reason, 'manual'), disabled_at = COALESCE(disabled_at, ${now}::timestamptz)`);
  } else if (change.disabled === false) {
    sets.push(sql`disabled = false, disabled_reason = NULL, disabled_at = NULL, failing_since = NULL`);
  }
  const [row] = await rows<EndpointRow>(
    conn,
    sql`UPDATE webhook_endpoints e SET ${sql.join(sets, sql`, `)} WHERE ${live(workspaceId, id)} RETURNING ${ENDPOINT}`,
  );
  return row && endpointOf(row);
}

/** Soft delete: its deliveries stay until they age out; the delivery worker attempts none of a deleted endpoint. */
export async function deleteEndpoint(conn: Conn, workspaceId: string, id: string, now: Date): Promise<boolean> {
  const done = await rows<{ id: string }>(
    conn,
    sql`UPDATE webhook_endpoints e SET deleted_at = ${now}::timestamptz, updated_at = ${now}::timestamptz WHERE ${live(workspaceId, id)} RETURNING e.id`,
  );
  return done.length > 0;
}

/** A new signing secret; the current one keeps signing beside it until `previousUntil`. */
export async function rollSecret(conn: Conn, workspaceId: string, id: string, sealed: string, previousUntil: Date, now: Date): Promise<boolean> {
  const done = await rows<{ id: string }>(
    conn,
    sql`UPDATE webhook_endpoints e SET previous_secret_sealed = e.secret_sealed, previous_secret_until = ${previousUntil}::timestamptz,
          secret_sealed = ${sealed}, updated_at = ${now}::timestamptz
        WHERE ${live(workspaceId, id)} RETURNING e.id`,
  );
  return done.length > 0;
}

/** The grants ended: their endpoints are disabled for good (a reason given before is replaced). */
export async function disableEndpointsOfGrants(conn: Conn, grantIds: string[], now: Date): Promise<number> {
  if (grantIds.length === 0) return 0;
  const done = await rows<{ id: string }>(
    conn,
    sql`UPDATE webhook_endpoints SET disabled = true, disabled_reason = 'grant_ended', disabled_at = COALESCE(disabled_at, ${now}::timestamptz), updated_at = ${now}::timestamptz
        WHERE oauth_grant_id = ANY (${`{${grantIds.join(',')}}`}::uuid[]) AND deleted_at IS NULL AND disabled_reason IS DISTINCT FROM 'grant_ended'
        RETURNING id`,
  );
  return done.length;
}

const DELIVERY = raw(`d.id, d.event_id AS "eventId", ev.type AS "eventType", d.status, d.attempts, d.last_status_code AS "statusCode",
  d.last_error AS "error", d.last_duration_ms AS "durationMs", d.last_response AS "response", ${isoTimestamp('d.next_attempt_at')} AS "nextAttemptAt",
  ${isoTimestamp('d.last_attempt_at')} AS "lastAttemptAt", ${isoTimestamp('d.created_at')} AS "createdAt"`);

export function listDeliveries(
  conn: Conn,
  workspaceId: string,
  endpointId: string,
  o: ListParams & { status?: DeliveryRow['status'] },
): Promise<DeliveryRow[]> {
  const dir = raw(o.sort === 'asc' ? 'ASC' : 'DESC');
  const byId = o.id ? sql` AND d.id = ${o.id}::uuid` : sql``;
  const byStatus = o.status ? sql` AND d.status = ${o.status}` : sql``;
  return rows<DeliveryRow>(
    conn,
    sql`SELECT ${DELIVERY} FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
        WHERE d.workspace_id = ${workspaceId}::uuid AND d.endpoint_id = ${endpointId}::uuid${byId}${byStatus}
        ORDER BY d.created_at ${dir}, d.seq ${dir} LIMIT ${o.take} OFFSET ${o.skip}`,
  );
}

export interface BacklogRow {
  webhookId: string;
  pending: number;
  due: number;
  oldestDueAt: string | null;
}

/**
 * Every live endpoint's deliveries still to send, newest endpoint first: how many are pending, how
 * many of them are due now (the database's clock, as delivery's), and since when the oldest due
 * one waits. One index-only count per endpoint (webhook_deliveries_endpoint_due_idx); the
 * endpoints are the workspace's, so their deliveries are too.
 */
export function listBacklog(conn: Conn, workspaceId: string): Promise<BacklogRow[]> {
  return rows<BacklogRow>(
    conn,
    sql`SELECT e.id AS "webhookId", b.pending, b.due, CASE WHEN b.due > 0 THEN ${raw(isoTimestamp('b.oldest'))} END AS "oldestDueAt"
        FROM webhook_endpoints e CROSS JOIN LATERAL (
          SELECT count(*)::int AS pending, count(*) FILTER (WHERE d.next_attempt_at <= now())::int AS due, min(d.next_attempt_at) AS oldest
          FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'pending') b
        WHERE e.workspace_id = ${workspaceId}::uuid AND e.deleted_at IS NULL
        ORDER BY e.created_at DESC, e.seq DESC`,
  );
}

/** Which deliveries of an endpoint a send concerns: one, the failed ones since a time, or those still waiting. */
export type DeliveriesConcerned = { deliveryId: string } | { failedSince: Date } | { waiting: true };

/** The distinct event types of the endpoint's deliveries a send concerns (their data is what goes out). */
export async function eventTypesOfDeliveries(conn: Conn, workspaceId: string, endpointId: string, which: DeliveriesConcerned): Promise<string[]> {
  const filter =
    'deliveryId' in which
      ? sql`d.id = ${which.deliveryId}::uuid`
      : 'failedSince' in which
        ? sql`d.status = 'failed' AND d.created_at >= ${which.failedSince}::timestamptz`
        : sql`d.status = 'pending'`;
  const found = await rows<{ type: string }>(
    conn,
    sql`SELECT DISTINCT ev.type FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
        WHERE d.workspace_id = ${workspaceId}::uuid AND d.endpoint_id = ${endpointId}::uuid AND ${filter}`,
  );
  return found.map((r) => r.type);
}

/**
 * One delivery of the endpoint back to pending, due now. An attempt in flight keeps its lease
 * (the worker that holds it finishes; the next claim sees the delivery due).
 */
export async function retryDelivery(conn: Conn, workspaceId: string, endpointId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  // Due now by the database's clock, as delivery reads it (an instance's clock ahead would park it).
  const [row] = await rows<DeliveryRow>(
    conn,
    sql`WITH d AS (
          UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(),
            locked_until = CASE WHEN status = 'pending' THEN locked_until END
          WHERE id = ${deliveryId}::uuid AND workspace_id = ${workspaceId}::uuid AND endpoint_id = ${endpointId}::uuid
          RETURNING *)
        SELECT ${DELIVERY} FROM d JOIN webhook_events ev ON ev.id = d.event_id`,
  );
  return row;
}

/** Every failed delivery of the endpoint created since `since` back to pending, due now (the database's clock); how many. */
export async function recoverDeliveries(conn: Conn, workspaceId: string, endpointId: string, since: Date): Promise<number> {
  const done = await rows<{ id: string }>(
    conn,
    sql`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), locked_until = NULL
        WHERE workspace_id = ${workspaceId}::uuid AND endpoint_id = ${endpointId}::uuid AND status = 'failed' AND created_at >= ${since}::timestamptz
        RETURNING id`,
  );
  return done.length;
}
