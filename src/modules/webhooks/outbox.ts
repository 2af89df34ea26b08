import type { BaseCtx } from '../../core/context.js';
import type { Conn } from '../../db/connect.js';
import type { EventType, OutboxEvent } from './event-types.js';
import { clickOutboxCtes, insertOutboxEvents, outboxInsertSql, subscribedTypes, workspacesSubscribedTo } from './store-outbox.js';

export { eventBody, type ClickEventRef, type EventType, type OutboxEvent } from './event-types.js';
export { clickOutboxCtes, outboxInsertSql };

/**
 * Writes events into the outbox, with one delivery per subscribed endpoint, on `ctx.db`: pass
 * the open transaction of the change that made them. Returns how many deliveries were queued.
 */
export function recordEvents({ ctx, input }: { ctx: Pick<BaseCtx, 'db'>; input: { events: OutboxEvent[]; endpointId?: string } }): Promise<number> {
  return insertOutboxEvents(ctx.db, input.events, input.endpointId);
}

/** Which event types the workspace's endpoints want now: a writer builds no payload nobody wants. */
export function eventTypesWanted({ ctx, input }: { ctx: Pick<BaseCtx, 'db'>; input: { workspaceId: string } }): Promise<Set<EventType>> {
  return subscribedTypes(ctx.db, input.workspaceId);
}

/** Workspaces subscribed to one type (the click writer re-reads this every few seconds). */
export function workspacesWanting(db: Conn, type: EventType): Promise<Set<string>> {
  return workspacesSubscribedTo(db, type);
}
