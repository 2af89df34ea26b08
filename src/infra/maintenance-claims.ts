import { sql } from 'drizzle-orm';
import { rows, type Conn } from '../db/connect.js';

/**
 * Which instance runs a maintenance job in a period: the one whose claim moves the job's row to
 * that period. The period is the database's (it holds `now()` there), not the instance's: two
 * instances whose clocks disagree by hours still claim the same period, so the job runs once in
 * it. One statement, so two instances claiming together cannot both win (the second waits for
 * the first's row and then finds the period taken) — the conditional claim the mail outbox and
 * webhook deliveries lease with.
 */
export interface MaintenanceClaims {
  /** The start of the database's current period of `periodMs` when this caller is the one to run `job` in it; undefined when it is taken. */
  claim(job: string, periodMs: number): Promise<Date | undefined>;
  /** Gives a failed run's period back, so that the next attempt (of any instance) may claim it. */
  release(job: string, period: Date): Promise<void>;
}

export function databaseClaims(db: Conn): MaintenanceClaims {
  return {
    async claim(job, periodMs) {
      // Periods aligned on the epoch (so on UTC midnight for a divisor of a day), in milliseconds.
      const won = await rows<{ period_start: string | Date }>(
        db,
        sql`INSERT INTO maintenance_runs (job, period_start)
            VALUES (${job}, to_timestamp(floor(extract(epoch FROM now()) * 1000 / ${periodMs}::bigint) * ${periodMs}::bigint / 1000.0))
            ON CONFLICT (job) DO UPDATE SET period_start = EXCLUDED.period_start, claimed_at = now()
            WHERE maintenance_runs.period_start IS DISTINCT FROM EXCLUDED.period_start
            RETURNING period_start`,
      );
      return won[0] && new Date(won[0].period_start);
    },
    async release(job, period) {
      await db.execute(sql`DELETE FROM maintenance_runs WHERE job = ${job} AND period_start = ${period.toISOString()}`);
    },
  };
}
