import { sql, type SQL } from 'drizzle-orm';
import { preparedRows, rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';
import type { ClickEventRef, EventType, OutboxEvent } from './event-types.js';

/**
 * The CTEs (`x`, `ev`, `queued`) that write the events of `source` (a row source with id,
 * workspace_id, type, body, body_sealed, created_at) and, for each, one delivery per enabled endpoint of its
 * workspace subscribed to its type (or only to `endpointId`, for webhook.test): an event no
 * endpoint wants is not written. An event id already stored (a replayed click batch) adds
 * nothing. For a statement that writes other rows too (the click batch), put them after its
 * own CTEs; alone, use outboxInsertSql. Run inside the change's transaction: that is the outbox.
 *
 * Each event finds its endpoints through the workspace index (no join between the batch's own
 * rows, whose size the planner cannot estimate: a nested loop over them made a click batch of
 * 20,000 events run past the 60 s statement timeout on PostgreSQL; now it is linear).
 */
function outboxFrom(source: SQL, endpointId?: string): SQL {
  const wants = (alias: string) => {
    const type = sql.raw(`${alias}.type`);
    return endpointId ? sql`e.id = ${endpointId}::uuid` : sql`${type} = ANY (e.events) AND NOT e.disabled`;
  };
  return sql`x AS (${source}),
    ev AS (
      INSERT INTO webhook_events (id, workspace_id, type, body, body_sealed, created_at)
      SELECT x.id, x.workspace_id, x.type, x.body, x.body_sealed, x.created_at FROM x
      WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.workspace_id = x.workspace_id AND e.deleted_at IS NULL AND ${wants('x')})
      ON CONFLICT (id) DO NOTHING
      RETURNING id, workspace_id, type),
    queued AS (
      INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, next_attempt_at)
      SELECT gen_random_uuid(), ev.workspace_id, e.id, ev.id, now()
      FROM ev JOIN webhook_endpoints e ON e.workspace_id = ev.workspace_id AND e.deleted_at IS NULL AND ${wants('ev')}
      RETURNING 1)`;
}

/** The outbox CTEs of events with their bodies (see outboxFrom). */
export function outboxCtes(events: OutboxEvent[], endpointId?: string): SQL {
  return outboxFrom(
    sql`SELECT x.id, x."workspaceId" AS workspace_id, x.type, x.body, x."bodySealed" AS body_sealed, now() AS created_at
        FROM jsonb_to_recordset(${JSON.stringify(events)}::jsonb) AS x(id uuid, "workspaceId" uuid, type text, body text, "bodySealed" text)`,
    endpointId,
  );
}

/** A Postgres array literal of values that need no quoting (ids, ISO times). */
const arrayLiteral = (values: readonly string[]): string => `{${values.join(',')}}`;

/**
 * The outbox CTEs of a click batch's link.clicked events. They keep no body: a click is stored
 * in the same transaction, and its body is composed from it when sent (storedEventBody), so a
 * batch passes three arrays instead of a body per click, and the outbox is not a second copy
 * of every click. The event's created_at is the click's, which finds its monthly partition.
 */
export function clickOutboxCtes(clicks: readonly ClickEventRef[]): SQL {
  return outboxFrom(sql`SELECT x.id, x.workspace_id, 'link.clicked'::text AS type, NULL::text AS body, NULL::text AS body_sealed, x.created_at
    FROM unnest(${arrayLiteral(clicks.map((c) => c.id))}::uuid[], ${arrayLiteral(clicks.map((c) => c.workspaceId))}::uuid[],
      ${arrayLiteral(clicks.map((c) => c.createdAt))}::timestamptz[]) AS x(id, workspace_id, created_at)`);
}

/**
 * What a statement reading `webhook_events ev` joins to send an event as it is: a link.clicked
 * event's click (clicks is the clicks module's table, read here in the delivery's own statement
 * so that a claim stays one round trip). Use with storedEventBody.
 */
export const storedEventClick = sql`LEFT JOIN LATERAL (
    SELECT c.* FROM clicks c WHERE ev.type = 'link.clicked' AND ev.body IS NULL AND c.id = ev.id AND c.created_at = ev.created_at AND c.workspace_id = ev.workspace_id LIMIT 1) c ON true`;

/**
 * The exact JSON sent for `ev` (joined with storedEventClick): its stored body, or for a
 * link.clicked event `{ type, timestamp, data }` with the Click record of GET /api/analytics
 * built from the click. NULL when that click is no longer stored (retention dropped it), and
 * for a sealed body (`ev.body_sealed`, opened by the caller).
 */
export const storedEventBody = sql`coalesce(ev.body, CASE WHEN c.id IS NOT NULL THEN json_build_object(
    'type', ev.type, 'timestamp', ${sql.raw(isoTimestamp('c.created_at'))},
    'data', json_build_object('id', c.id, 'linkId', c.link_id, 'partnerId', c.partner_id, 'createdAt', ${sql.raw(isoTimestamp('c.created_at'))},
      'country', c.country, 'device', c.device, 'browser', c.browser, 'os', c.os, 'referrer', c.referrer, 'referrerUrl', c.referrer_url,
      'utmSource', c.utm_source, 'utmMedium', c.utm_medium, 'utmCampaign', c.utm_campaign, 'utmTerm', c.utm_term,
      'utmContent', c.utm_content, 'trigger', c.trigger))::text END)`;

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
  const found = await preparedRows<{ type: EventType }>(
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
