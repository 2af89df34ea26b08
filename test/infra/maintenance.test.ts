/**
 * The maintenance schedule (infra/maintenance.ts): each job once per period across the instances
 * sharing a database (claimed in maintenance_runs), the period the database's clock is in, however
 * their own clocks differ; a job that fails (the database away, or a
 * lock not had in time while instances start together) gives its period back and is tried again
 * in 15 s, then twice as long each time up to 10 minutes; one that succeeds waits for its next
 * period. Runtime.maintain() runs every job whoever ran it.
 */
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MaintenanceScheduler, type MaintenanceJob } from '../../src/infra/maintenance.js';
import { databaseClaims, type MaintenanceClaims } from '../../src/infra/maintenance-claims.js';
import { rows, type Database } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { onPostgres, testConfig, testRuntimeOptions } from '../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../helpers/fresh-database.js';
import { migratedPglite } from '../helpers/migrated-pglite.js';
import { within } from '../helpers/wait.js';

const START = Date.UTC(2030, 0, 10, 12, 30, 0);
const HOUR = 3_600_000;
const quiet = pino({ level: 'silent' });
/** Claims that every caller wins: one instance alone. */
const alone: MaintenanceClaims = { claim: async () => new Date(), release: async () => undefined };

/** A job that fails while `down()` says so; the time of every attempt kept. */
function flakyJob(down: () => boolean): { job: MaintenanceJob; attempts: number[] } {
  const attempts: number[] = [];
  const job: MaintenanceJob = {
    name: 'flaky',
    run: async () => {
      attempts.push(Date.now() - START);
      if (down()) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    },
  };
  return { job, attempts };
}

/** A job whose runs wait until `open()`; how many began. */
function gatedJob(): { job: MaintenanceJob; started: number; open(): void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const gated = {
    started: 0,
    open: () => open(),
    job: {
      name: 'gated',
      run: async () => {
        gated.started++;
        await gate;
      },
    },
  };
  return gated;
}

describe('the schedule of one instance', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(START);
  });
  afterEach(() => vi.useRealTimers());

  it('tries again after 15 s, 30 s, 1 min… up to 10 minutes while runs fail, then a minute into each 6-hour period', async () => {
    let isDown = true;
    const { job, attempts } = flakyJob(() => isDown);
    const scheduler = new MaintenanceScheduler({ jobs: [job], claims: alone, clock: () => new Date(), log: quiet });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(40 * 60_000);
    const s = 1000;
    // 0, +15, +30, +60, +120, +240, +480, then +600 (the cap) each time.
    expect(attempts.slice(0, 9)).toEqual([0, 15 * s, 45 * s, 105 * s, 225 * s, 465 * s, 945 * s, 1545 * s, 2145 * s]);

    isDown = false;
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    const recovered = attempts.length;
    // Once a run succeeds, the next is at 18:01, the next period's first minute.
    await vi.advanceTimersByTimeAsync(START + 5 * HOUR - Date.now());
    expect(attempts.length).toBe(recovered);
    await vi.advanceTimersByTimeAsync(Date.UTC(2030, 0, 10, 18, 1) - Date.now());
    expect(attempts.length).toBe(recovered + 1);
    expect(attempts.at(-1)).toBe(Date.UTC(2030, 0, 10, 18, 1) - START);

    // A later failure starts again from 15 s.
    isDown = true;
    await vi.advanceTimersByTimeAsync(6 * HOUR);
    const failedAt = attempts.at(-1)!;
    expect(failedAt).toBe(Date.UTC(2030, 0, 11, 0, 1) - START);
    await vi.advanceTimersByTimeAsync(15 * s);
    expect(attempts.at(-1)! - failedAt).toBe(15 * s);
    await scheduler.close();
  });
});

describe('runAll (Runtime.maintain)', () => {
  it('a run asked for while one is under way starts again after it (what was written since is seen); callers meanwhile share that one run', async () => {
    const first = gatedJob();
    const scheduler = new MaintenanceScheduler({ jobs: [first.job], claims: alone, clock: () => new Date(), log: quiet });
    const running = scheduler.runAll();
    await expect.poll(() => first.started).toBe(1);
    const [second, third] = [scheduler.runAll(), scheduler.runAll()];
    expect(second).toBe(third);
    expect(second).not.toBe(running);
    first.open();
    await Promise.all([running, second]);
    expect(first.started).toBe(2);
    await scheduler.close();
  });

  it('runs one job at a time beside the schedule, and close() waits for the run under way', async () => {
    const gated = gatedJob();
    let atOnce = 0;
    let most = 0;
    const counted: MaintenanceJob = {
      name: 'counted',
      run: async () => {
        most = Math.max(most, ++atOnce);
        await gated.job.run(new Date());
        atOnce--;
      },
    };
    const scheduler = new MaintenanceScheduler({ jobs: [counted], claims: alone, clock: () => new Date(), log: quiet });
    const runs = [scheduler.runDue(), scheduler.runAll(), scheduler.runDue()];
    await expect.poll(() => gated.started).toBe(1);
    let closed = false;
    const closing = scheduler.close().then(() => (closed = true));
    await new Promise((r) => setImmediate(r));
    expect(closed).toBe(false);
    gated.open();
    await closing;
    await Promise.all(runs);
    expect({ started: gated.started, most }).toEqual({ started: 3, most: 1 });
  });

  it('runs every job though one fails, then rejects with that failure', async () => {
    const ran: string[] = [];
    const jobs: MaintenanceJob[] = ['a', 'b', 'c'].map((name) => ({
      name,
      run: async () => {
        ran.push(name);
        if (name === 'a') throw new Error('a failed');
      },
    }));
    const scheduler = new MaintenanceScheduler({ jobs, claims: alone, clock: () => new Date(), log: quiet });
    await expect(scheduler.runAll()).rejects.toThrow('a failed');
    expect(ran).toEqual(['a', 'b', 'c']);
  });
});

describe('instances sharing a database', () => {
  afterAll(() => dropFreshDatabases());
  const pglites: Database[] = [];
  afterAll(async () => {
    for (const d of pglites) await d.close();
  });
  /** A migrated database of the test's own (closed after the file). */
  async function database(): Promise<Database> {
    if (!onPostgres) return migratedPglite().then((d) => (pglites.push(d), d));
    const d = await freshDatabase();
    await migrate(d);
    return d;
  }

  it("run each job once per period of the database's clock, however far apart their own clocks are: the first to claim it runs it", async () => {
    const db = await database();
    const runs: string[] = [];
    const jobs: MaintenanceJob[] = [
      { name: 'test.every-6h', run: async () => void runs.push('test.every-6h') },
      { name: 'test.daily', periodMs: 24 * HOUR, run: async () => void runs.push('test.daily') },
    ];
    const instance = (hoursAhead: number) =>
      new MaintenanceScheduler({ jobs, claims: databaseClaims(db.db), clock: () => new Date(Date.now() + hoursAhead * HOUR), log: quiet });
    // b's clock is 7 hours ahead: by its own clock, another 6-hour period (and maybe another day).
    const [a, b] = [instance(0), instance(7)];
    const before = Date.now();
    await Promise.all([a.runDue(), b.runDue(), a.runDue(), b.runDue()]);
    expect([...runs].sort()).toEqual(['test.daily', 'test.every-6h']);
    // The periods claimed are the database's (its server's clock is this machine's), not b's.
    const claimed = await rows<{ job: string; start: number }>(
      db.db,
      sql`SELECT job, (extract(epoch FROM period_start) * 1000)::float8 AS start FROM maintenance_runs ORDER BY job`,
    );
    const startOf = (ms: number, every: number) => Math.floor(ms / every) * every;
    expect(claimed.map((c) => c.job)).toEqual(['test.daily', 'test.every-6h']);
    expect([startOf(before, 24 * HOUR), startOf(Date.now(), 24 * HOUR)]).toContain(Number(claimed[0]!.start));
    expect([startOf(before, 6 * HOUR), startOf(Date.now(), 6 * HOUR)]).toContain(Number(claimed[1]!.start));
    // Later in the same periods, and an instance whose clock is 13 hours behind: nothing more.
    await Promise.all([a.runDue(), b.runDue(), instance(-13).runDue()]);
    expect(runs).toHaveLength(2);
    // The 6-hour job's period over (its claim made one of the previous period): that job once.
    await db.db.execute(sql`UPDATE maintenance_runs SET period_start = period_start - interval '6 hours' WHERE job = 'test.every-6h'`);
    await Promise.all([b.runDue(), a.runDue()]);
    expect(runs.slice(2)).toEqual(['test.every-6h']);
    // The day over: both once more.
    await db.db.execute(sql`UPDATE maintenance_runs SET period_start = period_start - interval '1 day'`);
    await Promise.all([a.runDue(), b.runDue()]);
    expect(runs.slice(3).sort()).toEqual(['test.daily', 'test.every-6h']);
    await Promise.all([a.close(), b.close()]);
  });

  it('a failed run gives its period back: the next attempt, of any instance, runs it', async () => {
    const db = await database();
    let fail = true;
    let done = 0;
    let now = START;
    const jobs: MaintenanceJob[] = [
      {
        name: 'test.flaky',
        run: async () => {
          if (fail) throw new Error('lock timeout');
          done++;
        },
      },
    ];
    const instance = () => new MaintenanceScheduler({ jobs, claims: databaseClaims(db.db), clock: () => new Date(now), log: quiet });
    const [a, b] = [instance(), instance()];
    await a.runDue();
    fail = false;
    await b.runDue();
    expect(done).toBe(1);
    // a's retry, 15 s later, finds the period taken; maintain() runs it whoever did.
    now = START + 15_000;
    await a.runDue();
    expect(done).toBe(1);
    await a.runAll();
    expect(done).toBe(2);
  });
});

describe('two runtimes on one database', () => {
  const runtimes: Runtime[] = [];
  afterAll(async () => {
    for (const r of runtimes) await r.close();
    await dropFreshDatabases();
  });

  /** The jobs of every minute (periodMs 60,000). */
  const MINUTE_JOBS = ['partner-links.default-links', 'link-tests.completion'];

  /** A runtime with scheduled maintenance whose passes are recorded; resolves after its first pass. */
  async function start(database: Database, clock: () => Date): Promise<{ ran: string[]; claimedElsewhere: string[] }> {
    const passes: { ran: string[]; claimedElsewhere: string[] }[] = [];
    const logger = pino(
      { level: 'debug' },
      {
        write: (line: string) => {
          const entry = JSON.parse(line) as { msg: string; ran: string[]; claimedElsewhere: string[] };
          // The minute's jobs (partners' default links, A/B tests' completion) may run again in a
          // pass a minute boundary separates from another: this test is about the periods of hours.
          const hourly = (jobs: string[]) => jobs.filter((j) => !MINUTE_JOBS.includes(j));
          if (entry.msg === 'periodic maintenance pass') passes.push({ ran: hourly(entry.ran), claimedElsewhere: hourly(entry.claimedElsewhere) });
        },
      },
    );
    const runtime = await createRuntime(testConfig(), { ...testRuntimeOptions(), database, clock, logger, scheduledMaintenance: true });
    runtimes.push(runtime);
    expect(await within(30_000, async () => passes.length > 0)).toBe(true);
    return passes[0]!;
  }

  it("runs each maintenance job once per period of the database's clock between them, one runtime's clock hours ahead; again in the next period", async () => {
    const database = onPostgres ? await freshDatabase() : await migratedPglite();
    const closeOwn = onPostgres ? undefined : database;
    const hoursAhead = (hours: number) => () => new Date(Date.now() + hours * HOUR);
    // By its own clock, b is in another 6-hour period than a: before, each ran every job.
    const [a, b] = await Promise.all([start(database, hoursAhead(0)), start(database, hoursAhead(7))]);
    const jobs = [
      'audit.retention',
      'commissions.click-rewards',
      'mfa.failures',
      'password-reset.forget',
      'sessions.sign-in-visitors',
      'clicks.visitors',
      'clicks.referrer-days',
      'clicks.partitions',
      'table-statistics',
    ];
    expect([...a.ran, ...b.ran].sort()).toEqual([...jobs].sort());
    expect([...a.claimedElsewhere, ...b.claimedElsewhere].sort()).toEqual([...jobs].sort());
    // A third instance in the same period, its clock 13 hours behind, runs none.
    expect((await start(database, hoursAhead(-13))).ran).toEqual([]);
    // The period over (each claim made one of the day before): the next instance runs them all.
    await database.db.execute(sql`UPDATE maintenance_runs SET period_start = period_start - interval '1 day'`);
    expect((await start(database, hoursAhead(0))).ran).toEqual(jobs);
    for (const r of runtimes.splice(0)) await r.close();
    await closeOwn?.close();
  });
});
