import type { Ctx } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import type { Db } from '../../db/connect.js';
import { requireWorkspace } from '../workspaces/service.js';
import { applyBatch, type BatchDeps, type RowFailure } from './apply-batch.js';
import { readImportBatches, type ReadBatch } from './read-csv.js';
import type { ImportSource, ReadResult } from './row.js';
import * as store from './store.js';

export interface ImportWorkerDeps extends BatchDeps {
  db: Db;
  clock: () => Date;
  logger: { error(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** How often an idle worker looks for a job nobody holds (another instance's, or one left by a crash). */
  pollMs?: number;
  /** How long a job stays this instance's without a written batch before another may take it. */
  leaseMs?: number;
}

const lineOf = (r: ReadResult): number => (r.ok ? r.row.line : r.line);

/** Thrown inside a batch's transaction to undo it: another worker holds the job now. */
class LeaseLost extends Error {}

type Job = NonNullable<Awaited<ReturnType<typeof store.leaseImport>>>;

/** The job's file as a Buffer, whichever driver read it. */
const bufferOf = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

/**
 * Runs imports in the background (operations.md §13), on every instance: takes a running job
 * nobody holds, reads its file from the start (the reader's checks span the whole file), skips
 * the lines already written and writes each next batch in one transaction together with the
 * job's progress. A job whose instance stopped or died is taken over where it stood.
 */
export class ImportWorker {
  private stopped = false;
  private current: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ImportWorkerDeps) {}

  start(): this {
    this.current = this.loop();
    return this;
  }

  /** A job was just stored here: look now rather than at the next poll. */
  wake(): void {
    this.wakeUp?.();
  }

  /** Stops after the batch in hand; the job is released for another instance at once. */
  async close(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.current;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let job: Job | undefined;
      try {
        job = await store.leaseImport(this.deps.db, this.leaseMs);
        if (job) await this.run(job);
      } catch (err) {
        this.deps.logger.error({ err, importId: job?.id }, 'import worker');
      }
      if (!job && !this.stopped) await this.idle();
    }
  }

  private get leaseMs(): number {
    return this.deps.leaseMs ?? 30_000;
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      this.wakeUp = () => {
        clearTimeout(this.timer);
        this.wakeUp = undefined;
        resolve();
      };
      this.timer = setTimeout(() => this.wakeUp?.(), this.deps.pollMs ?? 2000);
    });
  }

  private async run(job: Job): Promise<void> {
    const workspace = await requireWorkspace({ ctx: { db: this.deps.db, now: this.deps.clock() }, input: { id: job.workspaceId } });
    try {
      const batches = readImportBatches(bufferOf(job.file), { source: job.source as ImportSource, ...job.options });
      let at = job.lastLine;
      for await (const batch of batches) {
        const last = lineOf(batch.results.at(-1)!);
        if (last <= at) continue;
        if (this.stopped) return await store.releaseImport(this.deps.db, job.id);
        const fresh = { ...batch, results: batch.results.filter((r) => lineOf(r) > at) };
        if (!(await this.write(job, { db: this.deps.db, workspace, now: this.deps.clock() }, fresh, { from: at, to: last }))) return;
        at = last;
      }
      await store.finishImport(this.deps.db, job.id, null);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      // The file changed meaning under a new release, or a limit moved: the job ends, said why.
      await store.finishImport(this.deps.db, job.id, { code: err.code, params: err.params });
    }
  }

  /** One batch and its progress in one transaction; false when the job is no longer this worker's. */
  private async write(job: Job, ctx: Ctx, batch: ReadBatch, lines: { from: number; to: number }): Promise<boolean> {
    const changed: string[][] = [];
    let eventsWritten = false;
    const links = {
      ...this.deps.links,
      onChanged: (ids: string[]) => void changed.push(ids),
      onEventsWritten: () => void (eventsWritten = true),
    };
    try {
      await this.deps.db.transaction(async (tx) => {
        if (!(await store.lockImportAt(tx, job.id, lines.from))) throw new LeaseLost();
        const outcome = await applyBatch({ ...ctx, db: tx }, { ...this.deps, links }, batch.results, job.options.collection);
        const recorded = await store.recordBatch(tx, {
          id: job.id,
          lastLine: lines.to,
          done: batch.results.length,
          created: outcome.created,
          updated: outcome.updated,
          unchanged: outcome.unchanged,
          errors: outcome.failures.map((f: RowFailure) => ({ line: f.line, field: f.field, reason: f.reason, message: f.message.en, cells: batch.cells.get(f.line) ?? null })),
          leaseMs: this.leaseMs,
        });
        if (!recorded) throw new LeaseLost();
      });
    } catch (err) {
      if (err instanceof LeaseLost) return false;
      throw err;
    }
    // Caches drop and deliveries wake only once the batch is committed.
    for (const ids of changed) await this.deps.links.onChanged?.(ids);
    if (eventsWritten) this.deps.links.onEventsWritten?.();
    return true;
  }
}
