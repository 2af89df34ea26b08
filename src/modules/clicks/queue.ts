import { Backoff } from '../../infra/backoff.js';
import type { RawClick } from './record.js';

export interface ClickQueueOptions {
  batchSize: number;
  flushIntervalMs: number;
  /** Clicks held in memory at most; beyond it they go to the spool only (or, without one, wait). */
  capacity: number;
  /** How often a summary line is logged (0: never). */
  summaryMs?: number;
  /** How long close() keeps trying to write before leaving the rest to the spool. */
  closeMs?: number;
}

/** Where clicks become durable before their visitors are answered (spool.ts). */
export interface ClickDurability {
  /** `endSeq`: the queue sequence just past the click when it is queued, 0 when it is spilled. */
  append(click: RawClick, endSeq: number, done: () => void): void;
  /** Every queued click before `seq` is in the database. */
  committed(seq: number): void;
  readonly healthy: boolean;
  readonly bytes: number;
  /** Syncs and closes; returns how many queued clicks it keeps for the next start. */
  close(): number;
}

interface Log {
  warn(o: object, m: string): void;
  info(o: object, m: string): void;
}

const DEFAULTS: ClickQueueOptions = { batchSize: 20_000, flushIntervalMs: 1000, capacity: 200_000, summaryMs: 60_000, closeMs: 5000 };

/**
 * Clicks are recorded by the redirect and written in batches, one statement each. With a spool
 * (spool.ts) each click is on disk before its visitor is answered, so a crash loses
 * nothing; when the memory queue is full, clicks go to the spool only and are replayed from it.
 * A failed write keeps its batch and is retried with backoff; one log line per state change.
 */
export class ClickQueue {
  private queue: RawClick[] = [];
  private flushing: Promise<void> | undefined;
  /** Set by close(): past it, clicks not yet written are left to the spool. */
  private closeDeadline: number | undefined;
  private waiters: (() => void)[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private closed = false;
  private readonly backoff = new Backoff();
  private downSince = 0;
  private spool: ClickDurability | undefined;
  /** Sequence of clicks ever put in the memory queue; the first is 1. */
  private queued = 0;
  /** Clicks recorded since start; queued clicks written to the database; clicks spilled to disk only. */
  accepted = 0;
  written = 0;
  spilled = 0;
  /** Redirects answered (including HEAD and prefetches, which are not clicks). */
  redirects = 0;
  private last = { redirects: 0, accepted: 0, written: 0 };

  constructor(
    /** Stores a batch in one statement, enriching each click on the way (see record.ts). */
    private readonly write: (clicks: RawClick[]) => Promise<void>,
    private readonly log: Log,
    // Few, large batches: each batch is a statement and a commit for the database. Measured
    // with the redirect bench: 1 s / 20,000 beat 500 ms / 10,000 by ~10 % and 100 ms / 2,000
    // by ~30 %; 2 s / 40,000 gained nothing more. The capacity is ten batches.
    options: Partial<ClickQueueOptions> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.o = { ...DEFAULTS, ...options };
    this.timers.push(setInterval(() => this.flushSoon(), this.o.flushIntervalMs));
    if (this.o.summaryMs) this.timers.push(setInterval(() => this.summary(), this.o.summaryMs));
    for (const t of this.timers) t.unref();
  }

  private readonly o: ClickQueueOptions;

  /** Makes clicks durable in `spool` before their visitors are answered. */
  useSpool(spool: ClickDurability): void {
    this.spool = spool;
  }

  /** Records a click; `done` runs once it is durable: answer the visitor then, not before. */
  record(click: RawClick, done: () => void): void {
    if (this.queue.length < this.o.capacity) {
      this.accepted++;
      this.queue.push(click);
      this.queued++;
      if (this.spool) this.spool.append(click, this.queued, done);
      else done();
      // A running drain takes every click queued meanwhile; starting one per click while the
      // database is busy would chain a promise per click.
      if (this.queue.length >= this.o.batchSize && !this.flushing && this.backoff.ready(this.now())) void this.startDrain(0);
      return;
    }
    if (this.spool?.healthy) {
      this.accepted++;
      this.spilled++;
      this.spool.append(click, 0, done);
      return;
    }
    // No spool to hold it: the visitor waits for room (back-pressure), the click is never dropped.
    this.waiters.push(() => this.record(click, done));
    if (!this.flushing) void this.startDrain(0);
  }

  /** `record` as a promise, for the framework route. */
  enqueue(click: RawClick): Promise<void> {
    return new Promise((resolve) => this.record(click, resolve));
  }

  /** Spilled clicks whose spool write failed: kept in memory after all, beyond the capacity. */
  takeBack(clicks: RawClick[]): void {
    this.spilled -= clicks.length;
    for (const c of clicks) this.queue.push(c);
    this.queued += clicks.length;
  }

  /** Whether a click can be recorded without waiting. */
  hasRoom(): boolean {
    return this.queue.length < this.o.capacity || Boolean(this.spool?.healthy);
  }

  /**
   * Whether a click id of this workspace was handed out but is not yet in the database (another
   * workspace's pending click is not "pending" for it, so it costs what an unknown id costs).
   */
  isPending(clickId: string, workspaceId: string): boolean {
    // Asked only when tracking meets a click id the database does not have yet (rare): a scan
    // of the queue is cheaper overall than indexing every click on the hot path.
    return this.queue.some((c) => c.id === clickId && c.workspaceId === workspaceId);
  }

  get size(): number {
    return this.queue.length;
  }

  /** Writes every click queued so far (one statement per batch), now, whatever the backoff. */
  flush(): Promise<void> {
    return this.writeUpTo(this.queued);
  }

  /** A flush unless the database failed recently and its backoff has not run out. */
  flushSoon(): Promise<void> {
    return this.backoff.ready(this.now()) ? this.flush() : Promise.resolve();
  }

  /** Writes until the first `target` clicks ever queued are in the database. */
  private writeUpTo(target: number): Promise<void> {
    if (this.written >= target || this.queue.length === 0) return Promise.resolve();
    if (this.flushing) return this.flushing.then(() => this.writeUpTo(target));
    return this.startDrain(target);
  }

  private startDrain(target: number): Promise<void> {
    this.flushing = this.drain(target).finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /**
   * Writes batches until `target` clicks are written, then goes on only while a whole batch is
   * waiting. Clicks that arrive during a write wait for the next tick rather than being sent at
   * once in tiny batches: per batch, the database commits, so small batches cost it far more.
   */
  private async drain(target: number): Promise<void> {
    while (this.queue.length > 0 && (this.written < target || this.queue.length >= this.o.batchSize) && !this.spoolTakesTheRest()) {
      const batch = this.queue.slice(0, this.o.batchSize);
      try {
        await this.write(batch);
      } catch (err) {
        this.failed(err);
        if (this.closed) throw err;
        return;
      }
      this.recovered();
      this.queue.splice(0, batch.length);
      this.written += batch.length;
      this.spool?.committed(this.written);
      const free = this.waiters.splice(0, this.o.capacity - this.queue.length);
      for (const w of free) w();
    }
  }

  private failed(err: unknown): void {
    const wait = this.backoff.fail(this.now());
    if (this.backoff.failures > 1) return;
    this.downSince = this.now();
    this.log.warn({ err, queued: this.queue.length, retryInMs: wait }, 'click writes failing; retrying with backoff, clicks kept meanwhile');
  }

  private recovered(): void {
    if (!this.backoff.failing) return;
    this.log.info({ failedAttempts: this.backoff.failures, downMs: this.now() - this.downSince, queued: this.queue.length }, 'click writes working again');
    this.backoff.succeed();
  }

  /** One line a minute instead of one per redirect: what the hot path did meanwhile. */
  private summary(): void {
    const { redirects, accepted, written } = this;
    if (redirects === this.last.redirects && accepted === this.last.accepted && written === this.last.written && this.queue.length === 0) return;
    this.log.info(
      {
        redirects: redirects - this.last.redirects,
        clicks: accepted - this.last.accepted,
        clicksWritten: written - this.last.written,
        queued: this.queue.length,
        spilled: this.spilled,
        spoolBytes: this.spool?.bytes ?? 0,
      },
      'redirect summary',
    );
    this.last = { redirects, accepted, written };
  }

  /** Closing, past the deadline, with a spool that holds every click not yet written. */
  private spoolTakesTheRest(): boolean {
    return this.spool !== undefined && this.closeDeadline !== undefined && this.now() >= this.closeDeadline;
  }

  /**
   * Writes what it can within `closeMs` (retrying with backoff while the database is away);
   * what is left stays in the spool, replayed at the next start.
   */
  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    const deadline = (this.closeDeadline = this.now() + (this.o.closeMs ?? 5000));
    while (this.queue.length > 0) {
      await this.flush();
      const left = deadline - this.now();
      // Past the deadline, what is left stays in the spool for the next start (a flood answered
      // faster than the database writes, as on PGlite off the server's thread, outlasted main.ts's
      // 15 s); without a spool, writes go on while they succeed (a slow database is still a
      // database) and the deadline only ends retries of a failing one.
      if (this.queue.length === 0 || (left <= 0 && this.backoff.failing) || this.spoolTakesTheRest()) break;
      await new Promise((r) => setTimeout(r, Math.min(left, this.backoff.failing ? 250 * this.backoff.failures : 50)));
    }
    this.closed = true;
    const kept = this.spool?.close() ?? 0;
    if (this.queue.length && this.spool)
      this.log.warn({ clicks: this.queue.length, spooled: kept }, 'clicks not yet in the database stay in the spool for the next start');
    else if (this.queue.length) this.log.warn({ clicks: this.queue.length }, 'clicks left unwritten at shutdown');
    this.log.info({ redirects: this.redirects, clicksAccepted: this.accepted, clicksWritten: this.written, clicksSpilled: this.spilled }, 'click queue closed');
  }
}
