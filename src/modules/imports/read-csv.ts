import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppError } from '../../core/errors.js';
import { buildRow, failure, type RowContext } from './build-row.js';
import { headerOf, withoutBom, type Delimiter } from './csv-file.js';
import { csvRecords } from './csv-records.js';
import type { ReadOptions, ReadResult } from './row.js';
import { planColumns } from './sources.js';

export type { ImportRow, ImportSource, ReadOptions, ReadResult } from './row.js';
export { headerOf } from './csv-file.js';
export { detectSource } from './sources.js';

/** Rows an import takes, the header not counted (operations.md §13). */
export const MAX_ROWS = 100_000;
const BATCH_ROWS = 500;
/** Rows checked between two turns of the event loop. */
const TURN_ROWS = 100;

/**
 * Whether the file may hold more than `limit` records: one a line break, plus a last line without
 * one. It stops counting past the limit (49 MB of line breaks were counted to the end, one
 * call a line break, in one go).
 */
function mayHoldMoreThan(body: Buffer, limit: number): boolean {
  const byte = body.includes(0x0a) ? 0x0a : 0x0d;
  let count = body.at(-1) === byte ? 0 : 1;
  for (let at = body.indexOf(byte); at >= 0 && count <= limit; at = body.indexOf(byte, at + 1)) count++;
  return count > limit;
}

/** Line breaks in `body` from `start` to `end` (LF, or CR in a file without LF): one native search each. */
export function lineBreaks(body: Buffer, start = 0, end = body.length): number {
  const byte = body.includes(0x0a) ? 0x0a : 0x0d;
  let count = 0;
  for (let at = body.indexOf(byte, start); at >= 0 && at < end; at = body.indexOf(byte, at + 1)) count++;
  return count;
}

/** Refuses a file of more than MAX_ROWS rows before any is read (quoted line breaks make a cheap count too high). */
export async function checkRowCount(body: Buffer, delimiter: Delimiter): Promise<void> {
  if (!mayHoldMoreThan(body, MAX_ROWS + 1)) return;
  let records = 0;
  for await (const record of csvRecords(body, delimiter)) {
    records = record.line;
    if (records > MAX_ROWS + 1) throw new AppError('import_too_many_rows', { limit: MAX_ROWS });
  }
}

/** A batch of results, with each record's own cells by line (for the errors CSV). */
export interface ReadBatch {
  results: ReadResult[];
  cells: Map<number, string[]>;
  /** How far into the file (bytes, a BOM included) the batch's last record ends, give or take a slice the parser read ahead. */
  endByte: number;
}

/** The first batch's size (smaller, for a job to show progress soon) and the BOM's bytes before the body. */
interface BatchSizes {
  firstBatchRows?: number;
  offset: number;
}

/** Cells kept for the errors CSV; a row larger than this comes back without them. */
const KEPT_ROW_CHARS = 64 * 1024;

async function* batches(body: Buffer, delimiter: Delimiter, ctx: RowContext, o: BatchSizes): AsyncGenerator<ReadBatch> {
  await checkRowCount(body, delimiter);
  let batch: ReadBatch = { results: [], cells: new Map(), endByte: 0 };
  let size = o.firstBatchRows ?? BATCH_ROWS;
  for await (const record of csvRecords(body, delimiter)) {
    batch.endByte = Math.min(o.offset + ('bytes' in record ? record.bytes : body.length), o.offset + body.length);
    if (record.line === 1) continue;
    const result = 'unclosedQuote' in record ? failure(record.line, 'row', 'unclosed_quote') : buildRow(ctx, record.line, record.cells);
    if (result) batch.results.push(result);
    if (result && 'cells' in record && record.cells.reduce((n, c) => n + c.length, 0) <= KEPT_ROW_CHARS) batch.cells.set(record.line, record.cells);
    if (batch.results.length >= size) {
      yield batch;
      batch = { results: [], cells: new Map(), endByte: batch.endByte };
      size = BATCH_ROWS;
    }
    if (record.line % TURN_ROWS === 0) await nextTurn();
  }
  if (batch.results.length > 0) yield batch;
}

/**
 * The rows of an uploaded CSV, in batches, the event loop free between them. Problems of the file
 * as a whole (too large, not UTF-8 text, empty, no destination column, a mapping naming an unknown
 * field or column) throw AppError here, before anything is read; more than MAX_ROWS rows throws on
 * the first batch, before any row. A row that cannot be imported is a failure in its batch.
 */
export function readImportBatches(file: Buffer, o: ReadOptions, sizes: { firstBatchRows?: number } = {}): AsyncIterable<ReadBatch> {
  const { delimiter, columns } = headerOf(file);
  const ctx: RowContext = {
    plan: planColumns(columns, o.source, o.mapping),
    columns,
    upgradeHttp: o.upgradeHttp === true,
    seenShortUrls: new Map(),
    defaultDomain: o.domain,
    now: Date.now(),
  };
  const body = withoutBom(file);
  return batches(body, delimiter, ctx, { ...sizes, offset: file.length - body.length });
}

/** readImportBatches without the cells (file problems still throw at once). */
export function readImport(file: Buffer, o: ReadOptions): AsyncIterable<ReadResult[]> {
  const read = readImportBatches(file, o);
  return (async function* () {
    for await (const batch of read) yield batch.results;
  })();
}
