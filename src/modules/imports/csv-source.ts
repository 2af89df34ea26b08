import type { Ctx } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import type { Scope } from '../../core/scopes.js';
import { applyBatch } from './apply-batch.js';
import { headerOf } from './csv-file.js';
import type { JobBatch, JobSource } from './job-source.js';
import { readImportBatches } from './read-csv.js';
import { missingNames } from './resolve-names.js';
import type { CsvSource as ImportSource, ReadResult } from './row.js';
import { planColumns } from './sources.js';
import type { ImportOptions } from './store.js';

const lineOf = (r: ReadResult): number => (r.ok ? r.row.line : r.line);

/**
 * Rows of a job's first batch: written (and its progress committed) in a fraction of a second, so
 * a job shows movement at once; the next batches take the reader's full size (issue 43).
 */
const FIRST_BATCH_ROWS = 50;

/** The names a file uses, read through once. */
async function namesIn(file: Buffer, source: ImportSource, o: ImportOptions): Promise<{ total: number; collections: string[]; tags: string[] }> {
  const collections = new Set<string>();
  const tags = new Map<string, string>();
  let total = 0;
  for await (const batch of readImportBatches(file, { ...o, source })) {
    total += batch.results.length;
    for (const r of batch.results) {
      if (!r.ok) continue;
      if (r.row.collection !== undefined) collections.add(r.row.collection);
      for (const t of r.row.tags) if (!tags.has(t.toLowerCase())) tags.set(t.toLowerCase(), t);
    }
  }
  if (o.collection !== undefined) collections.add(o.collection);
  return { total, collections: [...collections], tags: [...tags.values()] };
}

/** 403 naming the write scopes a file needs beyond linksWrite: it names collections or tags that do not exist yet. */
async function checkScopes(ctx: Ctx, names: { collections: string[]; tags: string[] }, scopes: ReadonlySet<Scope>): Promise<void> {
  const missing = await missingNames(ctx, names);
  const needed: Scope[] = [];
  if (missing.collections && !scopes.has('collectionsWrite')) needed.push('collectionsWrite');
  if (missing.tags && !scopes.has('tagsWrite')) needed.push('tagsWrite');
  if (needed.length) throw new AppError('missing_scopes', { scopes: needed.join(', ') }, { missingScopes: needed });
}

/** A CSV of one of the services §13 names (or any, as `csv`): rows become links. */
export function csvSource(source: ImportSource): JobSource {
  return {
    async check(ctx, file, o, scopes) {
      const { columns } = headerOf(file);
      const plan = planColumns(columns, source, o.mapping);
      if (!plan.collection && o.collection === undefined) throw new AppError('import_collection_required', { field: 'collection', reasonCode: 'required' });
      const names = await namesIn(file, source, o);
      await checkScopes(ctx, names, scopes);
      return { total: names.total, columns };
    },
    async *batches(file, o) {
      for await (const batch of readImportBatches(file, { ...o, source }, { firstBatchRows: FIRST_BATCH_ROWS })) {
        const job: JobBatch = {
          lastLine: lineOf(batch.results.at(-1)!),
          count: batch.results.length,
          endByte: batch.endByte,
          async apply(ctx, deps, afterLine) {
            const results = batch.results.filter((r) => lineOf(r) > afterLine);
            const outcome = await applyBatch(ctx, deps, results, o.collection);
            return { ...outcome, failures: outcome.failures.map((f) => ({ ...f, cells: batch.cells.get(f.line) ?? null })) };
          },
        };
        yield job;
      }
    },
  };
}
