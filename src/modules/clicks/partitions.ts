/**
 * The monthly partitions of `clicks` and retention, as rules: which partitions there are to be,
 * and which clicks are past retention. The SQL that applies them is in store.ts
 * (maintainClickPartitions); maintenance.ts makes it a periodic job.
 */

/** Partitions kept ready: the current month and this many after it. */
export const MONTHS_AHEAD = 2;

/** The first instant (UTC) of the month `offset` months after the one holding `at`. */
export function monthStart(at: Date, offset = 0): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1));
}

/** clicks_pYYYY_MM: the only partitions this job creates and drops. */
export function partitionName(month: Date): string {
  return `clicks_p${String(month.getUTCFullYear()).padStart(4, '0')}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The month a partitionName names; undefined for any other table. */
export function monthOfPartition(name: string): Date | undefined {
  const m = /^clicks_p(\d{4,})_(\d{2})$/.exec(name);
  return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)) : undefined;
}

/**
 * Clicks before this instant are past retention: the months that ended at least `months`
 * months ago (with 3, on any day of May everything before February).
 */
export function retentionCutoff(now: Date, months: number): Date {
  return monthStart(now, -months);
}

export interface PartitionReport {
  /** Whether `clicks` is partitioned (PostgreSQL; PGlite keeps one table). */
  partitioned: boolean;
  created: string[];
  /** Rows moved out of clicks_default into a partition created for their month. */
  moved: number;
  dropped: string[];
  /** Rows deleted past retention (the one table, or clicks_default). */
  deleted: number;
}
