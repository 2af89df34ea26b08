import type { Logger } from 'pino';
import type { Database } from '../../db/connect.js';
import type { PartitionReport } from './partitions.js';
import { maintainClickPartitions } from './store.js';
import { forgetPastVisitors } from './visitors.js';

const EVERY_MS = 6 * 3_600_000;
const RETRY_MS = 10 * 60_000;

export interface ClickPartitionOptions {
  database: Database;
  clock: () => Date;
  retentionMonths: number | undefined;
  log: Logger;
  /** Other periodic clean-ups that run with each maintenance (the audit log's retention); a failure of one is logged and does not stop the rest. */
  steps?: readonly ((now: Date) => Promise<void>)[];
}

/**
 * Runs maintainClickPartitions at start and every 6 hours (10 minutes after a failure), and
 * deletes the visitor salts and visitor_days of past UTC days (visitors.ts) at each run, the
 * first run after midnight included (one is scheduled a minute past each midnight).
 */
export class ClickPartitionKeeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<PartitionReport> | undefined;
  private closed = false;

  constructor(private readonly o: ClickPartitionOptions) {}

  start(): void {
    this.schedule(0);
  }

  /** One run now, or the one already under way. */
  run(): Promise<PartitionReport> {
    if (this.running) return this.running;
    const now = this.o.clock();
    const run = (async () => {
      const forgotten = await forgetPastVisitors(this.o.database.db, now);
      if (forgotten.salts > 0) this.o.log.info(forgotten, "deleted past days' visitor salts and visitor days");
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
        () => this.schedule(Math.min(EVERY_MS, untilPastMidnight(this.o.clock()))),
        (err: unknown) => {
          this.o.log.warn({ err }, 'clicks partition maintenance failed; retrying in 10 minutes');
          this.schedule(RETRY_MS);
        },
      );
    }, ms);
    this.timer.unref();
  }

  /** Stops the schedule and waits for a run under way (it uses the database about to close). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }
}

/** Milliseconds from `now` to a minute past the next UTC midnight. */
function untilPastMidnight(now: Date): number {
  const DAY = 86_400_000;
  return Math.ceil((now.getTime() + 1) / DAY) * DAY + 60_000 - now.getTime();
}
