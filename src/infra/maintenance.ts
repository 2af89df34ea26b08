import type { Logger } from 'pino';
import type { MaintenanceClaims } from './maintenance-claims.js';

/** A periodic clean-up a module contributes (its registration's `jobs`). */
export interface MaintenanceJob {
  /** Unique across modules ('clicks.partitions'): the name its claims are kept under. */
  name: string;
  /** How often it runs, in periods aligned on UTC midnight (so a divisor of a day); default 6 hours. */
  periodMs?: number;
  run(now: Date): Promise<void>;
}

const SIX_HOURS = 6 * 3_600_000;
/** Each period's run starts a minute into it (the first after midnight sees the past day whole). */
const INTO_PERIOD_MS = 60_000;
/** After a failure (a lock not had in time while instances start together): 15 s, 30 s, 1 min… up to 10 min. */
const FIRST_RETRY_MS = 15_000;
const MAX_RETRY_MS = 10 * 60_000;

interface JobState {
  failures: number;
  retryAt?: number;
}

/**
 * The periodic maintenance of every module, run once per period across instances: at start and
 * a minute into each period, each job whose period nobody has claimed yet is claimed and run by
 * this instance (maintenance-claims.ts). The period is the database's: the instance's clock only
 * times its passes (one running ahead passes early, and finds the period taken or claims it). A
 * job that fails gives its period back and is tried again in 15 s, then twice as long each time
 * up to 10 minutes; one failing does not stop the others. Jobs run one at a time, in the order
 * given.
 */
export class MaintenanceScheduler {
  private readonly states = new Map<string, JobState>();
  private timer: NodeJS.Timeout | undefined;
  /** The end of the last run asked for (never a rejection): each run starts after it, so one runs at a time. */
  private tail: Promise<void> = Promise.resolve();
  /** A runAll asked for that has not started yet: who asks meanwhile shares it. */
  private queuedAll: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly o: { jobs: readonly MaintenanceJob[]; claims: MaintenanceClaims; clock: () => Date; log: Logger }) {
    for (const job of o.jobs) this.states.set(job.name, { failures: 0 });
  }

  start(): void {
    this.schedule(0);
  }

  /**
   * Every job now, whoever ran it this period (Runtime.maintain()); rejects with the first
   * failure once all have run. One asked for while a run is under way starts after it (what was
   * written since is seen); callers meanwhile share that one run.
   */
  runAll(): Promise<void> {
    this.queuedAll ??= this.afterTheOthers(() => {
      this.queuedAll = undefined;
      return this.runEvery();
    });
    return this.queuedAll;
  }

  /** One pass of the schedule now (what its timer runs): each job due whose period this instance wins. */
  runDue(): Promise<void> {
    return this.afterTheOthers(() => this.pass());
  }

  /** Stops the schedule and waits for the runs asked for (they use the database about to close). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (let last = this.tail; ; last = this.tail) {
      await last;
      if (last === this.tail) return;
    }
  }

  /** Runs `run` once every run asked for before it has ended. */
  private afterTheOthers(run: () => Promise<void>): Promise<void> {
    const done = this.tail.then(run);
    this.tail = done.catch(() => undefined);
    return done;
  }

  private async runEvery(): Promise<void> {
    const now = this.o.clock();
    let failure: { err: unknown } | undefined;
    for (const job of this.o.jobs) {
      await job.run(now).catch((err: unknown) => {
        this.o.log.warn({ err, job: job.name }, 'a periodic maintenance job failed');
        failure ??= { err };
      });
    }
    if (failure) throw failure.err;
  }

  private async pass(): Promise<void> {
    const now = this.o.clock();
    const ran: string[] = [];
    const claimedElsewhere: string[] = [];
    for (const job of this.o.jobs) {
      const state = this.states.get(job.name)!;
      if (state.retryAt !== undefined && state.retryAt > now.getTime()) continue;
      try {
        const period = await this.o.claims.claim(job.name, job.periodMs ?? SIX_HOURS);
        if (period) {
          await job.run(now).catch(async (err: unknown) => {
            await this.o.claims.release(job.name, period).catch(() => undefined);
            throw err;
          });
          ran.push(job.name);
        } else claimedElsewhere.push(job.name);
        Object.assign(state, { failures: 0, retryAt: undefined });
      } catch (err) {
        const retryMs = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** state.failures++);
        state.retryAt = now.getTime() + retryMs;
        this.o.log.warn({ err, job: job.name, retryInSeconds: retryMs / 1000 }, 'a periodic maintenance job failed; trying again');
      }
    }
    this.o.log.debug({ ran, claimedElsewhere }, 'periodic maintenance pass');
  }

  /** When the next pass is due: a retry, or a minute into a job's next period. */
  private nextPassIn(): number {
    const now = this.o.clock().getTime();
    const due = this.o.jobs.map((job) => {
      const state = this.states.get(job.name)!;
      return state.retryAt ?? periodStart(new Date(now), job) + (job.periodMs ?? SIX_HOURS) + INTO_PERIOD_MS;
    });
    return Math.max(0, Math.min(...due) - now);
  }

  private schedule(ms: number): void {
    if (this.closed || this.o.jobs.length === 0) return;
    this.timer = setTimeout(() => {
      void this.runDue().then(() => this.schedule(this.nextPassIn()));
    }, ms);
    this.timer.unref();
  }
}

/** The start (ms) of the job's period holding `now` by this instance's clock: when its next pass is due. */
function periodStart(now: Date, job: MaintenanceJob): number {
  const every = job.periodMs ?? SIX_HOURS;
  return Math.floor(now.getTime() / every) * every;
}
