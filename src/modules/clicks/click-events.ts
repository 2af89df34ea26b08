import type { SQL } from 'drizzle-orm';
import type { CountryLookup } from '../../infra/country.js';
import { isoTime, variantOf, type RawClick } from './record.js';

/**
 * A link.clicked event as the outbox takes it: its id is the click id (the webhook-id), its
 * time the click's. No body: the outbox composes it from the stored click when it is sent.
 */
export interface ClickEvent {
  id: string;
  workspaceId: string;
  /** ISO 8601, the click's createdAt. */
  createdAt: string;
}

/**
 * What the wiring gives the click writer for link.clicked (operations.md §11). The clicks module
 * knows no webhooks store: it is handed how to read the subscribed workspaces and how to write
 * events into the outbox in the batch's own statement.
 */
export interface ClickEventDeps {
  /** The workspaces with an enabled endpoint subscribed to link.clicked now (one query). */
  subscribedWorkspaces(): Promise<Set<string>>;
  /** The CTEs that write events and their deliveries (webhooks' outboxCtes), put first in a statement. */
  outboxCtes(events: ClickEvent[]): SQL;
  /** Told after a batch that wrote events committed (wakes the delivery worker). */
  onEventsWritten?(): void;
}

/** Every instance learns a new subscription within this long (operations.md §11: 5 s). */
export const SUBSCRIPTIONS_MAX_AGE_MS = 5000;

/**
 * This instance's copy of the subscribed workspaces, read again by the batch writer when it is
 * older than `maxAgeMs`: no timer, no query while no clicks come, nothing on the redirect path.
 * A failed read fails the batch (retried with its backoff), as its write would.
 */
export class ClickSubscriptions {
  private workspaces: ReadonlySet<string> = new Set();
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<ReadonlySet<string>> | undefined;

  constructor(
    private readonly read: () => Promise<Set<string>>,
    private readonly maxAgeMs = SUBSCRIPTIONS_MAX_AGE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async current(): Promise<ReadonlySet<string>> {
    if (this.now() - this.readAt < this.maxAgeMs) return this.workspaces;
    this.reading ??= this.refresh().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async refresh(): Promise<ReadonlySet<string>> {
    // Counted from before the read: a subscription committed during it is seen by the next one.
    const started = this.now();
    this.workspaces = await this.read();
    this.readAt = started;
    return this.workspaces;
  }
}

/**
 * The link.clicked events of a batch: one per human click of a subscribed workspace, its id the
 * click id (so a batch written again adds none), timed as the click. A workspace not
 * subscribed costs one Set lookup per click, and nothing at all while nobody is subscribed.
 */
export function clickEvents(clicks: readonly RawClick[], subscribed: ReadonlySet<string>, lookup: CountryLookup): ClickEvent[] {
  const events: ClickEvent[] = [];
  if (subscribed.size === 0) return events;
  for (const raw of clicks) {
    if (!subscribed.has(raw.workspaceId)) continue;
    const { row } = variantOf(raw, lookup);
    if (row.bot) continue;
    events.push({ id: raw.id, workspaceId: raw.workspaceId, createdAt: isoTime(raw.at) });
  }
  return events;
}

/** The click writer's side of link.clicked: the outbox CTEs of a batch, or none. */
export class ClickWebhooks {
  private readonly subscriptions: ClickSubscriptions;

  constructor(
    private readonly deps: ClickEventDeps,
    private readonly lookup: CountryLookup,
    maxAgeMs = SUBSCRIPTIONS_MAX_AGE_MS,
  ) {
    this.subscriptions = new ClickSubscriptions(() => deps.subscribedWorkspaces(), maxAgeMs);
  }

  /** The CTEs that write this batch's events, undefined when it has none. */
  async outboxOf(clicks: readonly RawClick[]): Promise<SQL | undefined> {
    const events = clickEvents(clicks, await this.subscriptions.current(), this.lookup);
    return events.length > 0 ? this.deps.outboxCtes(events) : undefined;
  }

  /** After a batch with events committed. */
  written(): void {
    this.deps.onEventsWritten?.();
  }
}
