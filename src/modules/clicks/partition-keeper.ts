import type { Logger } from 'pino';
import type { Database } from '../../db/connect.js';
import type { PartitionReport } from './partitions.js';
import { maintainClickPartitions } from './store.js';

const EVERY_MS = 6 * 3_600_000;
const RETRY_MS = 10 * 60_000;

export interface ClickPartitionOptions {
  database: Database;
  clock: () => Date;
  retentionMonths: number | undefined;
  log: Logger;
}

/** Runs maintainClickPartitions at start and every 6 hours (10 minutes after a failure). */
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
    const run = maintainClickPartitions(this.o.database, this.o.clock(), this.o.retentionMonths, this.o.log).finally(() => {
      this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.run().then(
        () => this.schedule(EVERY_MS),
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
