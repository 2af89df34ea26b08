import type { Readable } from 'node:stream';
import { csvStream } from '../../core/csv.js';
import type { ListParams } from '../../core/list-params.js';
import { CSV_PAGE, periodOf, type CsvWindow } from '../analytics/service.js';
import { analyticsConn, type Ctx } from '../../core/context.js';
import { eventPage, listEvents as selectEvents, type EventCursor, type EventFilter, type EventRecord, type EventType } from './store.js';

export interface EventListQuery extends ListParams {
  type?: EventType;
  linkId?: string;
  customerId?: string;
  customerExternalId?: string;
  startDate?: string;
  endDate?: string;
}

/**
 * The workspace's leads and sales as one list (an extension of api.md). Every filter is read
 * within the workspace, so another workspace's link or customer id matches nothing (an empty
 * list), as GET /api/analytics does with a foreign linkId. Dates are read and clamped exactly
 * as there. Read from the analytics connection: with a replica, a just-tracked event shows
 * once it has replicated.
 */
export async function listEvents({ ctx, deps, input: q }: { ctx: Ctx; deps: EventsDeps; input: EventListQuery }): Promise<Event[]> {
  const filter = filterOf(ctx, q);
  if (filter === 'empty') return [];
  return (await selectEvents(analyticsConn(ctx), filter, { take: q.take, skip: q.skip, sort: q.sort })).map(named(deps));
}

/**
 * One lead or sale as GET /api/events shows it, read on `ctx.db` (the primary, or the open
 * transaction that just wrote it: the webhook of a tracked event carries this record).
 */
export async function eventById({ ctx, deps, input }: { ctx: Ctx; deps: EventsDeps; input: { id: string; type: EventType } }): Promise<Event | undefined> {
  const [found] = await selectEvents(ctx.db, { workspaceId: ctx.workspace.id, id: input.id, type: input.type }, { take: 1, skip: 0, sort: 'desc' });
  return found && named(deps)(found);
}

/** What the events list needs beyond the workspace: the short links' origin, to show shortUrl. */
export interface EventsDeps {
  shortLinkBaseUrl: string;
}

/** An event as the API shows it: the link's short URL and title and the customer's name beside their ids, so a list needs no second call per row. */
export type Event = Omit<EventRecord, 'linkShortId'> & { shortUrl: string | null };

const named =
  (deps: EventsDeps) =>
  ({ linkShortId, ...r }: EventRecord): Event => ({ ...r, shortUrl: linkShortId === null ? null : `${deps.shortLinkBaseUrl}/${linkShortId}` });

/** The filter of a query, or 'empty' when its period leaves nothing; the query's 400s are thrown here. */
function filterOf(ctx: Ctx, q: EventListQuery): EventFilter | 'empty' {
  const period = periodOf(q);
  if (period === 'empty') return 'empty';
  return {
    workspaceId: ctx.workspace.id,
    id: q.id,
    type: q.type,
    linkId: q.linkId,
    customerId: q.customerId,
    customerExternalId: q.customerExternalId,
    ...period,
  };
}

/** The Event record's fields in order; metadata (free-form) is written as its JSON text. */
export const EVENT_COLUMNS = [
  'type',
  'id',
  'eventName',
  'linkId',
  'clickId',
  'customerId',
  'customerExternalId',
  'leadId',
  'amount',
  'currency',
  'metadata',
  'createdAt',
  'shortUrl',
  'linkTitle',
  'customerName',
  'customerEmail',
  'refundedAmount',
  'source',
] as const;

/** Keyset pages of events: each page starts after the last row of the one before. */
async function* eventPages(ctx: Ctx, deps: EventsDeps, filter: EventFilter, sort: 'asc' | 'desc', w: CsvWindow): AsyncGenerator<Event[]> {
  let left = w.take ?? Number.POSITIVE_INFINITY;
  let after: EventCursor | undefined;
  while (left > 0) {
    const take = Math.min(CSV_PAGE, left);
    const page = await eventPage(analyticsConn(ctx), filter, { take, skip: after ? 0 : w.skip, sort }, after);
    yield page.records.map(named(deps));
    if (page.records.length < take) return;
    left -= page.records.length;
    after = page.next;
  }
}

/**
 * The answer of `listEvents` as CSV, read from the database a page at a time as the stream is
 * consumed: the events of `input.query` in `input.window` (without `take`, every matching
 * event). The query's 400s are thrown here, before anything is streamed.
 */
export function eventsCsv({ ctx, deps, input }: { ctx: Ctx; deps: EventsDeps; input: { query: EventListQuery; window: CsvWindow } }): Readable {
  const { query: q, window: w } = input;
  const filter = filterOf(ctx, q);
  const pages = filter === 'empty' ? (async function* () {})() : eventPages(ctx, deps, filter, q.sort, w);
  return csvStream<Event>(EVENT_COLUMNS, pages);
}

/** Every lead or every sale of the workspace, oldest first, in keyset pages (the NDJSON export reads these). */
export function workspaceEventPages({ ctx, deps, input }: { ctx: Ctx; deps: EventsDeps; input: { type: EventType } }): AsyncGenerator<Event[]> {
  return eventPages(ctx, deps, { workspaceId: ctx.workspace.id, type: input.type }, 'asc', { skip: 0 });
}
