import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { BaseCtx } from '../../core/context.js';
import type { Sealer } from '../../core/sealed.js';
import { withTransaction } from '../../core/transaction.js';
import type { Conn, Database } from '../../db/connect.js';
import { destinationPolicy, postWebhook, type AttemptResult, type Destinations } from './post.js';
import { verdict } from './schedule.js';
import { webhookHeaders } from './sign.js';
import {
  claimDueDeliveries,
  keepDeliveries,
  recordFailure,
  recordSuccess,
  releaseLeases,
  type AttemptRecord,
  type ClaimedDelivery,
  type DisabledEndpoint,
  type HousekeepingReport,
} from './store-delivery.js';

export type { DisabledEndpoint, HousekeepingReport } from './store-delivery.js';

/** What delivery does when it disables an endpoint (see WebhookDeliveryOptions.onEndpointDisabled). */
export interface EndpointDisabledHooks {
  record?(tx: Conn, endpoint: DisabledEndpoint): Promise<void>;
  committed?(endpoint: DisabledEndpoint): void;
}

/** operations.md §11: the whole attempt, and how much of the answer is read. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const RESPONSE_BYTES = 1024;
/** Attempts in flight per endpoint, across instances. */
export const PER_ENDPOINT = 10;
/**
 * Attempts of one workspace in flight on an instance: a fifth of WEBHOOK_CONCURRENCY (10 of the
 * default 50), so receivers of one workspace that never answer hold at most that many slots
 * and the other workspaces' deliveries still go out (issue 41 M4).
 */
export function perWorkspaceOf(concurrency: number): number {
  return Math.max(1, Math.floor(concurrency / 5));
}
/** A lease outlives its attempt by this much, so only a dead instance's lease runs out. */
const LEASE_MARGIN_MS = 5_000;
const POLL_MS = 1_000;
const ERROR_BACKOFF_MS = 5_000;
const HOUSEKEEPING_EVERY_MS = 10 * 60_000;
const HOUSEKEEPING_FIRST_MS = 30_000;

export interface WebhookDeliveryOptions {
  database: Database;
  /** Opens the endpoints' secrets (purpose 'webhook-secret'). */
  sealer: Sealer;
  log: Logger;
  /** Stamps webhook-timestamp; the schedule itself runs on the database's clock. */
  clock: () => Date;
  /** Attempts in flight on this instance (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** WEBHOOK_RETRY_DELAYS. */
  retryDelaysMs: readonly number[];
  destinations: Destinations;
  /**
   * Told when delivery disabled an endpoint (410, or failing for 5 days): `record` runs in the
   * transaction that disables it (the owners' mail is queued there, so it is never lost nor sent
   * for a change that rolled back), `committed` after it (the log line, the mail worker's nudge).
   * The endpoint's disabled_reason shows why on its page.
   */
  onEndpointDisabled?: EndpointDisabledHooks;
  /** How long close() lets attempts under way finish before abandoning them (default 3 s). */
  closeGraceMs?: number;
}

/**
 * The delivery worker of one instance (operations.md §11, "Delivery"). It claims due deliveries
 * (a short transaction that leases them: store-delivery.ts), sends each with no transaction
 * open, and records the outcome. Polls every second when idle, at once again when a claim
 * filled every free slot or an attempt ends, and on wake() (an emitter, after its commit).
 * Every instance runs one (unless WEBHOOK_DELIVERY=false); the leases keep each attempt to one.
 */
export class WebhookDelivery {
  private readonly inFlight = new Set<Promise<void>>();
  /** Attempts in flight by workspace id (the per-workspace cap of the claim). */
  private readonly busy = new Map<string, number>();
  private readonly aborts = new AbortController();
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private housekeepingTimer: NodeJS.Timeout | undefined;
  private housekeeping: Promise<unknown> | undefined;
  private closed = false;
  private readonly allowed: ReturnType<typeof destinationPolicy>;

  constructor(private readonly o: WebhookDeliveryOptions) {
    this.allowed = destinationPolicy(o.destinations);
    // Every attempt under way listens to the one shutdown signal.
    setMaxListeners(0, this.aborts.signal);
  }

  start(): void {
    this.pump();
    this.scheduleHousekeeping(HOUSEKEEPING_FIRST_MS);
  }

  /** Looks for due deliveries now (an emitter calls this after committing events). */
  wake(): void {
    this.pump();
  }

  /**
   * Stops claiming (a claim under way hands its leases back unsent), lets attempts under way
   * finish for a moment, then abandons the rest: their leases are released, so they are due again
   * at once, on any instance. Nothing is lost: an undelivered event stays queued.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.pollTimer);
    clearTimeout(this.housekeepingTimer);
    await this.pumping;
    if (this.inFlight.size > 0) {
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(this.inFlight), new Promise((resolve) => (grace = setTimeout(resolve, this.o.closeGraceMs ?? 3000)))]);
      clearTimeout(grace);
      this.aborts.abort();
      await Promise.all(this.inFlight);
    }
    await this.housekeeping?.catch(() => undefined);
  }

  private pump(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    clearTimeout(this.pollTimer);
    this.pumpAgain = false;
    this.pumping = this.claimAndSend().then(
      (full) => {
        this.pumping = undefined;
        if (full || this.pumpAgain) this.pump();
        else this.sleep(POLL_MS);
      },
      (err: unknown) => {
        this.pumping = undefined;
        this.o.log.warn({ err }, 'webhook delivery: could not claim deliveries; trying again in 5 s');
        this.sleep(ERROR_BACKOFF_MS);
      },
    );
  }

  private sleep(ms: number): void {
    if (this.closed) return;
    this.pollTimer = setTimeout(() => this.pump(), ms);
    this.pollTimer.unref();
  }

  /** Claims as many due deliveries as there are free slots; true when it filled them all. */
  private async claimAndSend(): Promise<boolean> {
    const free = this.o.concurrency - this.inFlight.size;
    if (free <= 0) return false; // an attempt that ends pumps again
    const claimed = await claimDueDeliveries(this.o.database.db, {
      limit: free,
      perEndpoint: PER_ENDPOINT,
      perWorkspace: perWorkspaceOf(this.o.concurrency),
      busy: this.busy,
      leaseMs: ATTEMPT_TIMEOUT_MS + LEASE_MARGIN_MS,
    });
    if (this.closed) {
      // close() began during this claim: no attempt starts during a shutdown; the leases go
      // back at once, so another instance sends them now rather than when they run out.
      await releaseLeases(this.o.database.db, claimed);
      return false;
    }
    for (const delivery of claimed) {
      const attempt = this.attempt(delivery).catch((err: unknown) =>
        // Not recorded: the lease runs out and the attempt is made again (at least once).
        this.o.log.warn({ err, deliveryId: delivery.id }, 'webhook delivery: could not record an attempt'),
      );
      this.inFlight.add(attempt);
      this.count(delivery.workspaceId, 1);
      void attempt.finally(() => {
        this.inFlight.delete(attempt);
        this.count(delivery.workspaceId, -1);
        this.pump();
      });
    }
    return claimed.length === free;
  }

  private count(workspaceId: string, by: 1 | -1): void {
    const n = (this.busy.get(workspaceId) ?? 0) + by;
    if (n > 0) this.busy.set(workspaceId, n);
    else this.busy.delete(workspaceId);
  }

  /** One attempt: signed anew with this attempt's timestamp, sent, and its outcome recorded. */
  private async attempt(d: ClaimedDelivery): Promise<void> {
    const db = this.o.database.db;
    if (d.body === null && d.bodySealed === null) {
      // Its click was removed by retention before it could be sent: nothing is left to send.
      const gone = { statusCode: null, error: 'the clicked event\'s click is no longer stored', durationMs: 0, response: null };
      await recordFailure(db, { id: d.id, claimedAttempts: d.attempts, ...gone }, { retryInMs: null, gone: false });
      return;
    }
    const result = await this.send(d);
    if (this.aborts.signal.aborted && result.error === 'aborted') return releaseLeases(db, [d]);
    const record: AttemptRecord = { id: d.id, claimedAttempts: d.attempts, ...result };
    const next = verdict(result, d.attempts + 1, this.o.retryDelaysMs, this.o.clock());
    if (next.kind === 'succeeded') return recordSuccess(db, record);
    const failure = { retryInMs: next.kind === 'retry' ? next.inMs : null, gone: next.kind === 'gone' };
    const hooks = this.o.onEndpointDisabled;
    const disabled = hooks?.record
      ? await withTransaction(db, async (tx) => {
          const d = await recordFailure(tx, record, failure);
          if (d) await hooks.record!(tx, d);
          return d;
        })
      : await recordFailure(db, record, failure);
    if (disabled) hooks?.committed?.(disabled);
  }

  private send(d: ClaimedDelivery): Promise<AttemptResult> {
    let secrets: string[];
    let body: string;
    try {
      secrets = [d.secretSealed, ...(d.previousSecretSealed ? [d.previousSecretSealed] : [])].map((s) => this.o.sealer.open('webhook-secret', s));
      body = d.body ?? this.o.sealer.open('webhook-body', d.bodySealed!);
    } catch {
      // SECRET changed without SECRET_PREVIOUS: nothing can be signed until the operator fixes it.
      return Promise.resolve({ statusCode: null, error: 'the signing secret or the sealed event cannot be opened (SECRET changed?)', durationMs: 0, response: null, retryAfter: null });
    }
    const timestamp = Math.floor(this.o.clock().getTime() / 1000);
    return postWebhook(d.url, webhookHeaders(secrets, d.eventId, timestamp, body), body, {
      allowed: this.allowed,
      timeoutMs: ATTEMPT_TIMEOUT_MS,
      maxResponseBytes: RESPONSE_BYTES,
      signal: this.aborts.signal,
    });
  }

  private scheduleHousekeeping(ms: number): void {
    if (this.closed) return;
    this.housekeepingTimer = setTimeout(() => {
      this.housekeeping = keepWebhookDeliveries({ ctx: { db: this.o.database.db } }).then(
        (report) => {
          const { ran, ...counts } = report;
          if (ran && Object.values(counts).some((n) => n > 0)) this.o.log.info(counts, 'webhook housekeeping');
          this.scheduleHousekeeping(HOUSEKEEPING_EVERY_MS);
        },
        (err: unknown) => {
          this.o.log.warn({ err }, 'webhook housekeeping failed; trying again in 10 minutes');
          this.scheduleHousekeeping(HOUSEKEEPING_EVERY_MS);
        },
      );
    }, ms);
    this.housekeepingTimer.unref();
  }
}

/**
 * One housekeeping run, by one instance at a time: fails the pending deliveries of disabled or
 * deleted endpoints, and deletes deliveries and events kept 30 days (bounded batches).
 */
export function keepWebhookDeliveries({ ctx }: { ctx: Pick<BaseCtx, 'db'> }): Promise<HousekeepingReport> {
  return keepDeliveries(ctx.db, { batch: 5000, maxBatches: 20 });
}
