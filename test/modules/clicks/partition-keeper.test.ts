/**
 * The maintenance schedule (clicks/partition-keeper.ts): a run that fails (the database away, or
 * a lock not had in time while instances start together) is tried again in 15 s, then twice as
 * long each time up to 10 minutes; a run that succeeds goes back to every 6 hours.
 */
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/db/connect.js';
import { ClickPartitionKeeper } from '../../../src/modules/clicks/partition-keeper.js';

const START = Date.UTC(2030, 0, 10, 12, 0, 0);

/** A database whose statements fail while `down()` says so; the time of every attempt kept. */
function flakyDatabase(down: () => boolean): { database: Database; attempts: number[] } {
  const attempts: number[] = [];
  const db = {
    execute: async () => {
      attempts.push(Date.now() - START);
      if (down()) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      return { rows: [{ salts: 0, visitorDays: 0 }] };
    },
  };
  // Without CLICK_RETENTION_MONTHS, PGlite's maintenance is the visitor clean-up alone.
  return { database: { kind: 'pglite', db } as unknown as Database, attempts };
}

describe('ClickPartitionKeeper', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(START);
  });
  afterEach(() => vi.useRealTimers());

  it('tries again after 15 s, 30 s, 1 min… up to 10 minutes while runs fail, then every 6 hours', async () => {
    let isDown = true;
    const { database, attempts } = flakyDatabase(() => isDown);
    const keeper = new ClickPartitionKeeper({ database, clock: () => new Date(), retentionMonths: undefined, log: pino({ level: 'silent' }) });
    keeper.start();
    await vi.advanceTimersByTimeAsync(40 * 60_000);
    const s = 1000;
    // 0, +15, +30, +60, +120, +240, +480, then +600 (the cap) each time.
    expect(attempts.slice(0, 9)).toEqual([0, 15 * s, 45 * s, 105 * s, 225 * s, 465 * s, 945 * s, 1545 * s, 2145 * s]);

    isDown = false;
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    const recovered = attempts.length;
    // Once a run succeeds, the next is hours away (6 h, or a minute past midnight).
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect(attempts.length).toBe(recovered);

    // A later failure starts again from 15 s.
    isDown = true;
    const before = attempts.length;
    for (let steps = 0; attempts.length === before && steps < 7 * 720; steps++) await vi.advanceTimersByTimeAsync(5000);
    expect(attempts.length).toBe(before + 1);
    const failedAt = attempts.at(-1)!;
    await vi.advanceTimersByTimeAsync(15 * s);
    expect(attempts.length).toBe(before + 2);
    expect(attempts.at(-1)! - failedAt).toBe(15 * s);
    await keeper.close();
  });

  it('a run asked for while one is under way starts again after it (what was written since is seen); callers meanwhile share that one run', async () => {
    vi.useRealTimers();
    const { database, attempts } = flakyDatabase(() => false);
    const keeper = new ClickPartitionKeeper({ database, clock: () => new Date(), retentionMonths: undefined, log: pino({ level: 'silent' }) });
    await keeper.run();
    const perRun = attempts.length;
    expect(perRun).toBeGreaterThan(0);
    attempts.length = 0;
    const first = keeper.run();
    const [second, third] = [keeper.run(), keeper.run()];
    expect(second).toBe(third);
    expect(second).not.toBe(first);
    await Promise.all([first, second]);
    expect(attempts.length).toBe(2 * perRun);
    await keeper.close();
  });
});
