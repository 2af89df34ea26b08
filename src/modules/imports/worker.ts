import type { Ctx } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { PollLoop } from '../../core/poll-loop.js';
import type { Db } from '../../db/connect.js';
import { requireWorkspace } from '../workspaces/service.js';
import type { BatchDeps } from './apply-batch.js';
import type { JobBatch } from './job-source.js';
import { jobSource } from './job-sources.js';
import type { ImportSource } from './row.js';
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

/** Thrown inside a batch's transaction to undo it: another worker holds the job now. */
class LeaseLost extends Error {}

type Job = NonNullable<Awaited<ReturnType<typeof store.leaseImport>>>;

/**
 * Runs imports in the background (operations.md §13), on every instance: takes a running job
 * nobody holds, reads its file from the start (the reader's checks span the whole file), skips
 * the lines already written and writes each next batch in one transaction together with the
 * job's progress. A job whose instance stopped or died is taken over where it stood.
 */
export class ImportWorker {
  private readonly loop = new PollLoop({
    step: () => this.next(),
    delayMs: () => this.deps.pollMs ?? 2000,
    onError: (err) => this.deps.logger.error({ err }, 'import worker'),
  });

  constructor(private readonly deps: ImportWorkerDeps) {}

  start(): this {
    this.loop.start();
    return this;
  }

  /** A job was just stored here: look now rather than at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  /** Stops after the batch in hand; the job is released for another instance at once. */
  close(): Promise<void> {
    return this.loop.stop();
  }

  /** True when a job was taken (whatever became of it). */
  private async next(): Promise<boolean> {
    const job = await store.leaseImport(this.deps.db, this.leaseMs);
    if (!job) return false;
    try {
      await this.run(job);
    } catch (err) {
      this.deps.logger.error({ err, importId: job.id }, 'import worker');
    }
    return true;
  }

  private get leaseMs(): number {
    return this.deps.leaseMs ?? 30_000;
  }

  private async run(job: Job): Promise<void> {
    const workspace = await requireWorkspace({ ctx: { db: this.deps.db, now: this.deps.clock() }, input: { id: job.workspaceId } });
    try {
      let at = job.lastLine;
      for await (const batch of jobSource(job.source as ImportSource).batches(Buffer.from(await store.importFile(this.deps.db, job.id), 'utf8'), job.options)) {
        if (batch.lastLine <= at) continue;
        if (this.loop.stopping) return await store.releaseImport(this.deps.db, job.id);
        if (!(await this.write(job, { db: this.deps.db, workspace, now: this.deps.clock() }, batch, at))) return;
        at = batch.lastLine;
      }
      await store.finishImport(this.deps.db, job.id, null);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      // The file changed meaning under a new release, or a limit moved: the job ends, said why.
      await store.finishImport(this.deps.db, job.id, { code: err.code, params: err.params });
    }
  }

  /** One batch and its progress in one transaction; false when the job is no longer this worker's. */
  private async write(job: Job, ctx: Ctx, batch: JobBatch, afterLine: number): Promise<boolean> {
    const changed: string[][] = [];
    let eventsWritten = false;
    const links = {
      ...this.deps.links,
      onChanged: (ids: string[]) => void changed.push(ids),
      onEventsWritten: () => void (eventsWritten = true),
    };
    try {
      await this.deps.db.transaction(async (tx) => {
        if (!(await store.lockImportAt(tx, job.id, afterLine))) throw new LeaseLost();
        const outcome = await batch.apply({ ...ctx, db: tx }, { ...this.deps, links }, afterLine);
        const failed = outcome.failures.filter((f) => !f.leftOut).length;
        const recorded = await store.recordBatch(tx, {
          id: job.id,
          lastLine: batch.lastLine,
          bytesRead: batch.endByte,
          // A resumed batch counts only the rows after where the job stood.
          done: outcome.created + outcome.updated + outcome.unchanged + failed,
          failed,
          created: outcome.created,
          updated: outcome.updated,
          unchanged: outcome.unchanged,
          errors: outcome.failures.map((f) => ({ line: f.line, field: f.field, reason: f.reason, message: f.message.en, cells: f.cells ?? null })),
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
    this.deps.links.onBulkWritten?.();
    return true;
  }
}
