import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Parser } from 'csv-parse';
import { AppError } from '../../core/errors.js';
import type { Delimiter } from './csv-file.js';

/**
 * The records of a CSV file, streamed: the file goes to the parser in 16 KB slices and the event
 * loop gets a turn after each slice and every TURN_RECORDS records, so neither one huge cell nor
 * a file of blank lines holds it. Each record carries its number as a spreadsheet shows it (the
 * header is 1; a cell spanning lines counts once; blank lines count, as a spreadsheet shows them
 * as empty rows).
 */

/**
 * A slice of blank lines is as many records, which the parser makes in one go and a reader takes
 * without a turn: with 64 KB slices and no turn between records, 49 MB of line breaks held the
 * loop for 720 ms of the main thread's CPU (before the row limit stopped it); with 16 KB and a
 * turn every 1,000 records, 70 ms.
 */
const SLICE_BYTES = 16 * 1024;
const TURN_RECORDS = 1000;

/**
 * Cells a row may hold (operations.md §13): no link export comes near it, and a row of millions
 * of one-byte cells built millions of strings the reader then walked in one go (issue 41: 10
 * million empty cells held the loop for 1.2 s of the main thread's CPU, event-loop.test.ts).
 */
export const MAX_ROW_CELLS = 1000;

/** `bytes`: how far into the body the parser had read when the record ended. */
export type CsvRecord = { line: number; cells: string[]; bytes: number } | { line: number; unclosedQuote: true };

/**
 * Spreadsheets run a cell beginning with =, +, -, @, TAB or CR as a formula, so exports (ours,
 * `core/csv.ts`, and Dub's) write such text with a guard quote in front: `'-1`. The guard is not
 * part of the value.
 */
export function unguardFormula(cell: string): string {
  return /^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell;
}

async function* slices(body: Buffer): AsyncGenerator<Buffer> {
  for (let at = 0; at < body.length; at += SLICE_BYTES) {
    yield body.subarray(at, at + SLICE_BYTES);
    await nextTurn();
  }
}

/** Every record of `body` (BOM already removed or not), the header included as line 1. */
export async function* csvRecords(body: Buffer, delimiter: Delimiter): AsyncGenerator<CsvRecord> {
  // Skipping (rather than failing on) a broken record keeps the records read before it: a stream
  // that errors drops what it still buffers. With quotes and column counts relaxed, the one error
  // left is a quote still open at the end of the file.
  const parser = new Parser({
    delimiter,
    bom: true,
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: false,
    skip_records_with_error: true,
    // Past MAX_ROW_CELLS the parser stops splitting a row: the rest of it is one last cell, so a
    // row never holds more than one cell beyond the limit, and on_record refuses it as it ends.
    ignore_last_delimiters: MAX_ROW_CELLS + 1,
    on_record: (cells: string[], info) => {
      if (cells.length > MAX_ROW_CELLS) throw new AppError('import_too_many_cells', { line: info.records, limit: MAX_ROW_CELLS });
      return cells;
    },
  });
  let broken = false;
  parser.on('skip', () => (broken = true));
  const input = Readable.from(slices(body), { objectMode: false });
  input.pipe(parser);
  let line = 0;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      line++;
      yield { line, cells: cells.map(unguardFormula), bytes: parser.info.bytes };
      if (line % TURN_RECORDS === 0) await nextTurn();
    }
    if (broken) yield { line: line + 1, unclosedQuote: true };
  } finally {
    input.destroy();
  }
}
