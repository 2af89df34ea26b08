/**
 * Shared by the emit*.test.ts files: endpoints seeded by SQL (the endpoints API is built
 * beside this work), and what the outbox holds for a workspace, bodies parsed.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { rows } from '../../../src/db/connect.js';
import { storedEventBody, storedEventClick } from '../../../src/modules/webhooks/store-outbox.js';
import { Sealer } from '../../../src/core/sealed.js';
import { SECRET, type TestApp } from '../../helpers/app.js';

/** An endpoint of the workspace subscribed to `events`; its id. */
export async function endpoint(t: TestApp, workspaceId: string, events: string[], o: { disabled?: boolean; url?: string } = {}): Promise<string> {
  const id = randomUUID();
  await t.database.db.execute(sql`INSERT INTO webhook_endpoints (id, workspace_id, url, events, disabled, created_by, secret_sealed)
    VALUES (${id}, ${workspaceId}, ${o.url ?? 'https://hooks.example/in'}, ${`{${events.join(',')}}`}::text[], ${o.disabled ?? false}, '{"type":"key","id":"k"}', 'x')`);
  return id;
}

export async function deleteEndpoint(t: TestApp, id: string): Promise<void> {
  await t.database.db.execute(sql`UPDATE webhook_endpoints SET deleted_at = now() WHERE id = ${id}::uuid`);
}

export interface StoredEvent {
  id: string;
  type: string;
  /** As sent (a sealed one opened). */
  body: { type: string; timestamp: string; data: Record<string, unknown> & { id: string } };
  /** Stored sealed (its record holds a secret). */
  sealed: boolean;
  /** The endpoints it is queued for. */
  endpoints: string[];
}

/** Every event of the workspace (of `type` if given) with the body its deliveries send, and the endpoints it was queued for. */
export async function eventsOf(t: TestApp, workspaceId: string, type?: string): Promise<StoredEvent[]> {
  const found = await rows<{ id: string; type: string; body: string | null; bodySealed: string | null; endpoints: string[] | null }>(
    t.database.db,
    sql`SELECT ev.id, ev.type, ${storedEventBody} AS body, ev.body_sealed AS "bodySealed",
          (SELECT array_agg(d.endpoint_id::text ORDER BY d.endpoint_id) FROM webhook_deliveries d WHERE d.event_id = ev.id) AS endpoints
        FROM webhook_events ev ${storedEventClick}
        WHERE ev.workspace_id = ${workspaceId}::uuid ${type ? sql`AND ev.type = ${type}` : sql``} ORDER BY ev.created_at, ev.id`,
  );
  const sealer = new Sealer(SECRET);
  return found.map((e) => ({
    id: e.id,
    type: e.type,
    body: JSON.parse(e.body ?? sealer.open('webhook-body', e.bodySealed!)),
    sealed: e.bodySealed !== null,
    endpoints: e.endpoints ?? [],
  }));
}

/** The events of one type by the id of the record in their data. */
export async function eventsByDataId(t: TestApp, workspaceId: string, type: string): Promise<Map<string, StoredEvent>> {
  return new Map((await eventsOf(t, workspaceId, type)).map((e) => [e.body.data.id, e]));
}

/**
 * A trigger that fails the insert of any webhook event whose body contains `marker`: the
 * transaction of the change that made it fails at its last step. Returns the trigger's remover.
 */
export function failEventsContaining(t: TestApp, marker: string): Promise<() => Promise<void>> {
  return failEventsWhere(t, `fail_events_${marker.replace(/[^a-z0-9]/gi, '').toLowerCase()}`, `strpos(NEW.body, '${marker}') > 0`);
}

/**
 * A trigger that fails the insert of any webhook event matching `condition` (SQL over NEW, the
 * event row); link.clicked events have no body, so they are matched by workspace or type. Each
 * refusal is counted in a sequence (whose nextval the refused transaction cannot roll back):
 * refusalsOf(t, name).
 */
export async function failEventsWhere(t: TestApp, name: string, condition: string): Promise<() => Promise<void>> {
  const run = (statement: string) => t.database.db.execute(sql.raw(statement));
  await run(`CREATE SEQUENCE ${name}_refusals`);
  await run(
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM nextval('${name}_refusals'); RAISE EXCEPTION 'outbox write refused for a test'; END $$`,
  );
  await run(`CREATE TRIGGER ${name} BEFORE INSERT ON webhook_events FOR EACH ROW WHEN (${condition}) EXECUTE FUNCTION ${name}()`);
  return async () => {
    await run(`DROP TRIGGER ${name} ON webhook_events`);
    await run(`DROP FUNCTION ${name}()`);
    await run(`DROP SEQUENCE ${name}_refusals`);
  };
}

/** How many inserts failEventsWhere's trigger `name` has refused so far. */
export async function refusalsOf(t: TestApp, name: string): Promise<number> {
  const [row] = await rows<{ n: number }>(t.database.db, sql.raw(`SELECT CASE WHEN is_called THEN last_value ELSE 0 END::int AS n FROM ${name}_refusals`));
  return row!.n;
}
