import type { Ctx } from '../../core/context.js';
import type { Scope } from '../../core/scopes.js';
import type { BatchDeps, BatchOutcome } from './apply-batch.js';
import type { ImportOptions } from './store.js';

/**
 * What the import job needs of a source format (CSV sources, the `linktrail` NDJSON export, the
 * affiliate tools' exports of affiliates/):
 * a check of the whole file before the job is stored, and the file's batches in order, each
 * written in the worker's transaction.
 */

/** A rejected row as the errors CSV keeps it. */
export interface RejectedRow {
  line: number;
  field: string;
  reason: string;
  message: { en: string; ar: string };
  /** The row's own cells (for a CSV), when small enough to give back. */
  cells?: string[] | null;
  /**
   * The record was written all the same, without this field (a linktrail link's alias another
   * workspace holds): listed with the rejected rows, counted as written rather than failed.
   */
  leftOut?: boolean;
}

export interface JobBatch {
  /** The last line of the file this batch covers: the job resumes after it. */
  lastLine: number;
  /** Rows (records) in the batch, rejected ones included: the job's `done` moves by this. */
  count: number;
  /** How far into the file (bytes) the batch reaches, when the source knows: the job's `bytesRead`. */
  endByte?: number;
  /**
   * Writes the batch's rows after `afterLine` (a resumed job skips the rest). Each row is counted
   * once: created, updated, unchanged, or a failure (a `leftOut` failure is also counted above).
   */
  apply(ctx: Ctx, deps: BatchDeps, afterLine: number): Promise<Omit<BatchOutcome, 'failures'> & { failures: RejectedRow[] }>;
}

export interface CheckedFile {
  /** Rows (records) in the file. */
  total: number;
  /** The file's column names (the errors CSV repeats them), if it has any. */
  columns?: string[];
}

export interface JobSource {
  /**
   * The whole file checked before the job is stored: file-level problems throw their AppError
   * (400), scopes the file needs beyond linksWrite throw 403 `missing_scopes`.
   */
  check(ctx: Ctx, file: Buffer, options: ImportOptions, scopes: ReadonlySet<Scope>): Promise<CheckedFile>;
  /** The file's batches in order, the event loop free between them. */
  batches(file: Buffer, options: ImportOptions): AsyncIterable<JobBatch>;
}
