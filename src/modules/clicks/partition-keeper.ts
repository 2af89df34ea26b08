import type { Logger } from 'pino';
import type { Database } from '../../db/connect.js';
import type { PartitionReport } from './partitions.js';
import { maintainClickPartitions } from './store.js';
import { cutReferrerDays } from './referrer-days.js';
import { forgetPastVisitors } from './visitors.js';

const EVERY_MS = 6 * 3_600_000;
/** After a failure (a lock not had in time while instances start together): 15 s, 30 s, 1 min… up to 10 min. */
const FIRST_RETRY_MS = 15_000;
const MAX_RETRY_MS = 10 * 60_000;

export interface ClickPartitionOptions {
  database: Database;
  clock: () => Date;
  retentionMonths: number | undefined;
  log: Logger;
  /** Other periodic clean-ups that run with each maintenance (the audit log's retention); a failure of one is logged and does not stop the rest. */
  steps?: readonly ((now: Date) => Promise<void>)[];
}

/**
 * Runs maintainClickPartitions at start and every 6 hours (after a failure, again in 15 s, then
 * twice as long each time up to 10 minutes), and
 * deletes the visitor salts and visitor_days of past UTC days (visitors.ts) at each run, the
 * first run after midnight included (one is scheduled a minute past each midnight).
 */
export class ClickPartitionKeeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<PartitionReport> | undefined;
  private next: Promise<PartitionReport> | undefined;
  private closed = false;
  private failures = 0;

  constructor(private readonly o: ClickPartitionOptions) {}

  start(): void {
    this.schedule(0);
  }

  /** One run that starts now, or (one is under way, begun before what the caller wrote) as soon as it ends; callers meanwhile share it. */
  run(): Promise<PartitionReport> {
    if (this.running) {
      this.next ??= this.running
        .catch(() => undefined)
        .then(() => {
          this.next = undefined;
          return this.run();
        });
      return this.next;
    }
    const now = this.o.clock();
    const run = (async () => {
      const forgotten = await forgetPastVisitors(this.o.database.db, now);
      if (forgotten.salts > 0) this.o.log.info(forgotten, "deleted past days' visitor salts and visitor days");
      const cut = await cutReferrerDays(this.o.database.db, now);
      if (cut.rows > 0) this.o.log.info(cut, "folded past days' referrer URLs beyond each day's top into (other)");
      for (const step of this.o.steps ?? []) await step(now).catch((err: unknown) => this.o.log.warn({ err }, 'a periodic maintenance step failed'));
      return maintainClickPartitions(this.o.database, now, this.o.retentionMonths, this.o.log);
    })().finally(() => {
      this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.run().then(
        () => {
          this.failures = 0;
          this.schedule(Math.min(EVERY_MS, untilPastMidnight(this.o.clock())));
        },
        (err: unknown) => {
          const retryMs = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** this.failures++);
          this.o.log.warn({ err, retryInSeconds: retryMs / 1000 }, 'clicks partition maintenance failed; trying again');
          this.schedule(retryMs);
        },
      );
    }, ms);
    this.timer.unref();
  }

  /** Stops the schedule and waits for a run under way (it uses the database about to close). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.next?.catch(() => undefined);
    await this.running?.catch(() => undefined);
  }
}

/** Milliseconds from `now` to a minute past the next UTC midnight. */
function untilPastMidnight(now: Date): number {
  const DAY = 86_400_000;
  return Math.ceil((now.getTime() + 1) / DAY) * DAY + 60_000 - now.getTime();
}
