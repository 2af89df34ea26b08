import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { BaseCtx } from '../../core/context.js';
import type { Sealer } from '../../core/sealed.js';
import { withTransaction } from '../../core/transaction.js';
import type { Conn, Database, Tx } from '../../db/connect.js';
import { destinationPolicy, postWebhook, type AttemptResult, type Destinations } from './post.js';
import { verdict } from './schedule.js';
import { webhookHeaders } from './sign.js';
import {
  claimWithin,
  keepDeliveries,
  recordOutcomes,
  releaseLeases,
  type AttemptOutcome,
  type ClaimedDelivery,
  type DisabledEndpoint,
  type HousekeepingReport,
} from './store-delivery.js';

export type { DisabledEndpoint, HousekeepingReport } from './store-delivery.js';

/** A finished attempt waiting to be recorded; `startedAt` is performance.now() when it began. */
type Finished = Omit<AttemptOutcome, 'startedAgoMs'> & { startedAt: number };

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
/**
 * Claims start at most this often (issue 43). Every attempt's end used to claim again at once:
 * with a backlog the worker ran claim after claim (a transaction of five round trips leasing
 * the one or two slots just freed) and recorded each outcome in a statement and commit of its
 * own — 2.4 ms of PostgreSQL CPU per attempt, 71 % of a core while draining, beside the
 * redirect. Now the slots freed meanwhile are filled by one claim, whose transaction records
 * the outcomes before it: 0.55 ms per attempt, and more attempts a second than before
 * (npm run bench -- webhook-backlog; BENCHMARKS.md).
 */
export const CLAIM_GAP_MS = 20;
/**
 * While the instance's event loop was busier than BUSY_LOOP over the last LOOP_SAMPLE_MS (the
 * redirect under load), claims wait CLAIM_GAP_BUSY_MS instead: delivery yields to the redirect and
 * drains its backlog once the load falls.
 */
export const CLAIM_GAP_BUSY_MS = 100;
const BUSY_LOOP = 0.5;
const LOOP_SAMPLE_MS = 500;
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
  /** The least time between two claims (default CLAIM_GAP_MS; CLAIM_GAP_BUSY_MS at least while the event loop is busy). */
  claimGapMs?: number;
}

/**
 * The delivery worker of one instance (operations.md §11, "Delivery"). It claims due deliveries
 * (a short transaction that leases them: store-delivery.ts), sends each with no transaction
 * open, and records the outcomes in the next claim's transaction (two statements for all of
 * them, one commit with the claim). Polls every second when idle, again when a claim filled every
 * free slot or an attempt ends, and on wake() (an emitter, after its commit) — but never sooner
 * than claimGapMs after the previous claim began (CLAIM_GAP_BUSY_MS while the event loop is busy),
 * so the slots freed meanwhile go in one claim.
 * Every instance runs one (unless WEBHOOK_DELIVERY=false); the leases keep each attempt to one.
 */
export class WebhookDelivery {
  private readonly inFlight = new Set<Promise<void>>();
  /** Attempts in flight by workspace id (the per-workspace cap of the claim). */
  private readonly busy = new Map<string, number>();
  /** Attempts finished and not yet recorded: the next claim's transaction records them first. */
  private finished: Finished[] = [];
  private readonly aborts = new AbortController();
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  /** When the last claim began (performance.now()), and when the timer set below fires. */
  private claimedAt = -Infinity;
  private pollTimer: NodeJS.Timeout | undefined;
  private pollAt = Infinity;
  private readonly claimGapMs: number;
  /** Event-loop utilization when last sampled, and whether the loop was busy since the sample before. */
  private loopSample = performance.eventLoopUtilization();
  private loopBusy = false;
  private loopTimer: NodeJS.Timeout | undefined;
  private housekeepingTimer: NodeJS.Timeout | undefined;
  private housekeeping: Promise<unknown> | undefined;
  private closed = false;
  private readonly allowed: ReturnType<typeof destinationPolicy>;

  constructor(private readonly o: WebhookDeliveryOptions) {
    this.allowed = destinationPolicy(o.destinations);
    this.claimGapMs = o.claimGapMs ?? CLAIM_GAP_MS;
    // Every attempt under way listens to the one shutdown signal.
    setMaxListeners(0, this.aborts.signal);
  }

  start(): void {
    this.loopTimer = setInterval(() => {
      const now = performance.eventLoopUtilization();
      this.loopBusy = performance.eventLoopUtilization(now, this.loopSample).utilization > BUSY_LOOP;
      this.loopSample = now;
    }, LOOP_SAMPLE_MS);
    this.loopTimer.unref();
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
    clearInterval(this.loopTimer);
    await this.pumping;
    if (this.inFlight.size > 0) {
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(this.inFlight), new Promise((resolve) => (grace = setTimeout(resolve, this.o.closeGraceMs ?? 3000)))]);
      clearTimeout(grace);
      this.aborts.abort();
      await Promise.all(this.inFlight);
    }
    // What finished since the last claim is recorded now (else it would be sent again once its lease ran out).
    const outcomes = this.takeFinished();
    if (outcomes.length > 0) {
      await this.recordThen(outcomes, async () => undefined).catch((err: unknown) =>
        this.o.log.warn({ err }, 'webhook delivery: could not record the last attempts; they will be made again'),
      );
    }
    await this.housekeeping?.catch(() => undefined);
  }

  private pump(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    const gap = this.loopBusy ? Math.max(this.claimGapMs, CLAIM_GAP_BUSY_MS) : this.claimGapMs;
    const early = this.claimedAt + gap - performance.now();
    if (early > 0) return this.sleep(early);
    clearTimeout(this.pollTimer);
    this.pollAt = Infinity;
    this.pumpAgain = false;
    this.claimedAt = performance.now();
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

  /** Pumps in `ms`, unless a pump is already due sooner. */
  private sleep(ms: number): void {
    if (this.closed) return;
    const at = performance.now() + ms;
    if (this.pollAt <= at) return;
    clearTimeout(this.pollTimer);
    this.pollAt = at;
    this.pollTimer = setTimeout(() => {
      this.pollAt = Infinity;
      this.pump();
    }, ms);
    this.pollTimer.unref();
  }

  /**
   * Records the attempts finished since the last claim and claims as many due deliveries as there
   * are free slots, in one transaction; true when it filled them all.
   */
  private async claimAndSend(): Promise<boolean> {
    const free = this.o.concurrency - this.inFlight.size;
    const outcomes = this.takeFinished();
    // No slot free: an attempt that ends pumps again.
    if (free <= 0 && outcomes.length === 0) return false;
    const claimed = await this.recordThen(outcomes, (tx) =>
      free <= 0
        ? Promise.resolve([])
        : claimWithin(tx, {
            limit: free,
            perEndpoint: PER_ENDPOINT,
            perWorkspace: perWorkspaceOf(this.o.concurrency),
            busy: this.busy,
            leaseMs: ATTEMPT_TIMEOUT_MS + LEASE_MARGIN_MS,
          }),
    );
    if (this.closed) {
      // close() began during this claim: no attempt starts during a shutdown; the leases go
      // back at once, so another instance sends them now rather than when they run out.
      await releaseLeases(this.o.database.db, claimed);
      return false;
    }
    for (const delivery of claimed) {
      const attempt = this.attempt(delivery).catch((err: unknown) =>
        // Not recorded: the lease runs out and the attempt is made again (at least once).
        this.o.log.warn({ err, deliveryId: delivery.id }, 'webhook delivery: an attempt failed'),
      );
      this.inFlight.add(attempt);
      this.count(delivery.workspaceId, 1);
      void attempt.finally(() => {
        this.inFlight.delete(attempt);
        this.count(delivery.workspaceId, -1);
        this.pump();
      });
    }
    return free > 0 && claimed.length === free;
  }

  /** The finished attempts to record now, each with how long ago it began. */
  private takeFinished(): AttemptOutcome[] {
    const now = performance.now();
    return this.finished.splice(0).map(({ startedAt, ...o }) => ({ ...o, startedAgoMs: now - startedAt }));
  }

  /**
   * Records `outcomes` (the endpoints they disable with them: onEndpointDisabled.record), then
   * runs `then`, in one transaction; `committed` is told after it. Should it fail, the outcomes
   * wait for the next claim (their leases keep the deliveries meanwhile).
   */
  private async recordThen<T>(outcomes: AttemptOutcome[], then: (tx: Tx) => Promise<T>): Promise<T> {
    const hooks = this.o.onEndpointDisabled;
    let disabled: DisabledEndpoint[] = [];
    try {
      const result = await withTransaction(this.o.database.db, async (tx) => {
        disabled = outcomes.length > 0 ? await recordOutcomes(tx, outcomes) : [];
        for (const endpoint of disabled) await hooks?.record?.(tx, endpoint);
        return then(tx);
      });
      for (const endpoint of disabled) hooks?.committed?.(endpoint);
      return result;
    } catch (err) {
      const now = performance.now();
      this.finished.unshift(...outcomes.map(({ startedAgoMs, ...o }) => ({ ...o, startedAt: now - startedAgoMs })));
      throw err;
    }
  }

  private count(workspaceId: string, by: 1 | -1): void {
    const n = (this.busy.get(workspaceId) ?? 0) + by;
    if (n > 0) this.busy.set(workspaceId, n);
    else this.busy.delete(workspaceId);
  }

  /** One attempt: signed anew with this attempt's timestamp and sent; its outcome is recorded with the next claim. */
  private async attempt(d: ClaimedDelivery): Promise<void> {
    const startedAt = performance.now();
    if (d.body === null && d.bodySealed === null) {
      // Its click was removed by retention before it could be sent: nothing is left to send.
      const error = "the clicked event's click is no longer stored";
      this.finished.push({
        id: d.id,
        claimedAttempts: d.attempts,
        statusCode: null,
        error,
        durationMs: 0,
        response: null,
        startedAt,
        next: { kind: 'failed' },
      });
      return;
    }
    const result = await this.send(d);
    if (this.aborts.signal.aborted && result.error === 'aborted') return releaseLeases(this.o.database.db, [d]);
    const { retryAfter: _, ...answer } = result;
    const next = verdict(result, d.attempts + 1, this.o.retryDelaysMs, this.o.clock());
    this.finished.push({ id: d.id, claimedAttempts: d.attempts, ...answer, startedAt, next });
  }

  private send(d: ClaimedDelivery): Promise<AttemptResult> {
    let secrets: string[];
    let body: string;
    try {
      secrets = [d.secretSealed, ...(d.previousSecretSealed ? [d.previousSecretSealed] : [])].map((s) => this.o.sealer.open('webhook-secret', s));
      body = d.body ?? this.o.sealer.open('webhook-body', d.bodySealed!);
    } catch {
      // SECRET changed without SECRET_PREVIOUS: nothing can be signed until the operator fixes it.
      return Promise.resolve({
        statusCode: null,
        error: 'the signing secret or the sealed event cannot be opened (SECRET changed?)',
        durationMs: 0,
        response: null,
        retryAfter: null,
      });
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
