import { sql, type SQL } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import type { EventType, OutboxEvent } from './event-types.js';

/**
 * The CTEs (`x`, `t`, `ev`, `queued`) that write events and, for each, one delivery per enabled
 * endpoint of its workspace subscribed to its type (or only to `endpointId`, for webhook.test):
 * an event no endpoint wants is not written. An event id already stored (a replayed click
 * batch) adds nothing. For a statement that writes other rows too (the click batch), put
 * them after its own CTEs; alone, use outboxInsertSql. Run inside the change's transaction:
 * that is the outbox.
 */
export function outboxCtes(events: OutboxEvent[], endpointId?: string): SQL {
  const target = endpointId ? sql`e.id = ${endpointId}::uuid` : sql`x.type = ANY (e.events) AND NOT e.disabled`;
  return sql`x AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(events)}::jsonb) AS x(id uuid, "workspaceId" uuid, type text, body text)),
    t AS (
      SELECT x.id AS event_id, e.id AS endpoint_id, e.workspace_id
      FROM x JOIN webhook_endpoints e ON e.workspace_id = x."workspaceId" AND e.deleted_at IS NULL AND ${target}),
    ev AS (
      INSERT INTO webhook_events (id, workspace_id, type, body)
      SELECT x.id, x."workspaceId", x.type, x.body FROM x WHERE x.id IN (SELECT event_id FROM t)
      ON CONFLICT (id) DO NOTHING
      RETURNING id),
    queued AS (
      INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, next_attempt_at)
      SELECT gen_random_uuid(), t.workspace_id, t.endpoint_id, t.event_id, now() FROM t JOIN ev ON ev.id = t.event_id
      RETURNING 1)`;
}

/** The whole statement: writes the events and answers how many deliveries it queued (`n`). */
export function outboxInsertSql(events: OutboxEvent[], endpointId?: string): SQL {
  return sql`WITH ${outboxCtes(events, endpointId)} SELECT count(*)::int AS n FROM queued`;
}

/** Writes events (see outboxCtes); how many deliveries it queued. */
export async function insertOutboxEvents(conn: Conn, events: OutboxEvent[], endpointId?: string): Promise<number> {
  if (events.length === 0) return 0;
  const [row] = await rows<{ n: number }>(conn, outboxInsertSql(events, endpointId));
  return row?.n ?? 0;
}

/** The event types some enabled endpoint of the workspace subscribes to (one indexed read). */
export async function subscribedTypes(conn: Conn, workspaceId: string): Promise<Set<EventType>> {
  const found = await rows<{ type: EventType }>(
    conn,
    sql`SELECT DISTINCT unnest(events) AS type FROM webhook_endpoints
        WHERE workspace_id = ${workspaceId}::uuid AND deleted_at IS NULL AND NOT disabled`,
  );
  return new Set(found.map((r) => r.type));
}

/** Workspaces with an enabled endpoint subscribed to this type (the click writer's periodic read). */
export async function workspacesSubscribedTo(conn: Conn, type: EventType): Promise<Set<string>> {
  const found = await rows<{ id: string }>(
    conn,
    sql`SELECT DISTINCT workspace_id AS id FROM webhook_endpoints WHERE ${type} = ANY (events) AND deleted_at IS NULL AND NOT disabled`,
  );
  return new Set(found.map((r) => r.id));
}
