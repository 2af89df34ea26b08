import { sql, type SQL } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import type { EventType, OutboxEvent } from './event-types.js';

/**
 * The CTEs (`x`, `ev`, `queued`) that write events and, for each, one delivery per enabled
 * endpoint of its workspace subscribed to its type (or only to `endpointId`, for webhook.test):
 * an event no endpoint wants is not written. An event id already stored (a replayed click
 * batch) adds nothing. For a statement that writes other rows too (the click batch), put
 * them after its own CTEs; alone, use outboxInsertSql. Run inside the change's transaction:
 * that is the outbox.
 *
 * Each event finds its endpoints through the workspace index (no join between the batch's own
 * rows, whose size the planner cannot estimate: a nested loop over them made a click batch of
 * 20,000 events run past the 60 s statement timeout on PostgreSQL; now it is linear).
 */
export function outboxCtes(events: OutboxEvent[], endpointId?: string): SQL {
  const wants = (alias: string) => {
    const type = sql.raw(`${alias}.type`);
    return endpointId ? sql`e.id = ${endpointId}::uuid` : sql`${type} = ANY (e.events) AND NOT e.disabled`;
  };
  return sql`x AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(events)}::jsonb) AS x(id uuid, "workspaceId" uuid, type text, body text)),
    ev AS (
      INSERT INTO webhook_events (id, workspace_id, type, body)
      SELECT x.id, x."workspaceId", x.type, x.body FROM x
      WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.workspace_id = x."workspaceId" AND e.deleted_at IS NULL AND ${wants('x')})
      ON CONFLICT (id) DO NOTHING
      RETURNING id, workspace_id, type),
    queued AS (
      INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, next_attempt_at)
      SELECT gen_random_uuid(), ev.workspace_id, e.id, ev.id, now()
      FROM ev JOIN webhook_endpoints e ON e.workspace_id = ev.workspace_id AND e.deleted_at IS NULL AND ${wants('ev')}
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
