import type { Ctx } from '../../core/context.js';
import type { Sealer } from '../../core/sealed.js';
import type { Tx } from '../../db/connect.js';
import { newId } from '../../db/ids.js';
import { eventBody, eventTypesWanted, recordEvents, type EventType, type OutboxEvent } from '../webhooks/service.js';
import type { Link } from './record.js';

type LinkEventType = Extract<EventType, 'link.created' | 'link.updated' | 'link.deleted'>;

/** The link events of one write, each type with the links it concerns (built only if wanted). */
export type LinkEvents = Partial<Record<LinkEventType, () => Link[]>>;

/** Which link event types the workspace's endpoints want now: one indexed read, in the write's transaction. */
export async function linkEventsWanted(tx: Tx, ctx: Ctx): Promise<Set<EventType>> {
  return eventTypesWanted({ ctx: { db: tx }, input: { workspaceId: ctx.workspace.id } });
}

/**
 * Writes one event per link (operations.md §11: a bulk write sends one event per record) in
 * one statement, in the write's transaction, for the types some endpoint wants. The timestamp
 * is the request's time (`ctx.now`), the same for every event of one write: a deleted link's
 * record has no time of its deletion to take it from. A link with a password has its event's
 * body sealed. Returns how many deliveries it queued.
 */
export async function recordLinkEvents(tx: Tx, ctx: Ctx, sealer: Sealer, wanted: Set<EventType>, events: LinkEvents): Promise<number> {
  const out: OutboxEvent[] = [];
  for (const [type, links] of Object.entries(events) as [LinkEventType, () => Link[]][]) {
    if (!wanted.has(type)) continue;
    for (const link of links()) {
      const body = eventBody(type, ctx.now, link);
      const event = { id: newId(), workspaceId: ctx.workspace.id, type };
      // The Link record shows its password: the outbox keeps that body sealed, as links keep the password.
      out.push(link.password === null ? { ...event, body } : { ...event, bodySealed: sealer.seal('webhook-body', body) });
    }
  }
  return recordEvents({ ctx: { db: tx }, input: { events: out } });
}
