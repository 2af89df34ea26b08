import { isUtf8 } from 'node:buffer';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppError } from '../../../core/errors.js';
import { MAX_FILE_BYTES, withoutBom } from '../csv-file.js';
import { parseLine, rejected, type ParsedLine, type RecordType } from './records.js';

/**
 * The lines of a Linktrail export (NDJSON, UTF-8, at most 50 MB like any import): the file as a
 * whole is checked first (a file-level problem is a 400), then each line is read on its own, a
 * bad one rejected with its number and reason. The event loop gets a turn every 256 KB and
 * before each batch.
 */

/** A line longer than this is refused unread: no record comes near (a link with a full geo table is about 1 MB). */
export const MAX_LINE_BYTES = 2 * 1024 * 1024;
const TURN_BYTES = 256 * 1024;
/** Records a batch holds at most; a batch also ends where the record type changes. */
export const BATCH_RECORDS = 500;

function notNdjson(en: string, ar: string): AppError {
  return new AppError('import_not_ndjson', { detail: en, detailAr: ar });
}

/** Size, encoding, and that the first record is a JSON object; the file without its BOM. */
export function checkExportFile(file: Buffer): Buffer {
  if (file.length > MAX_FILE_BYTES) throw new AppError('import_too_large', { size: file.length, limit: MAX_FILE_BYTES });
  if (file.includes(0)) throw notNdjson('it holds binary data (NUL bytes) or UTF-16 text', 'يحتوي على بيانات ثنائية (بايتات NUL) أو نص بترميز UTF-16');
  if (!isUtf8(file)) throw notNdjson('it is not valid UTF-8 text', 'ليس نصًا صالحًا بترميز UTF-8');
  const body = withoutBom(file);
  const start = body.findIndex((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
  if (start < 0) throw notNdjson('it holds no record', 'لا يحتوي على أي سجل');
  if (body[start] !== 0x7b) {
    throw notNdjson(
      'its first line is not a JSON object (a CSV is imported with another source, such as source=csv)',
      'سطره الأول ليس كائن JSON (يُستورد ملف CSV بمصدر آخر، مثل source=csv)',
    );
  }
  return body;
}

export interface RawLine {
  line: number;
  /** The line's text, undefined when it is longer than MAX_LINE_BYTES. */
  text?: string;
}

/** The file's non-blank lines with their numbers (1-based, blank lines counted). */
export async function* exportLines(body: Buffer): AsyncGenerator<RawLine> {
  let line = 0;
  let sinceTurn = 0;
  for (let at = 0; at < body.length;) {
    const nl = body.indexOf(0x0a, at);
    const end = nl < 0 ? body.length : nl;
    line++;
    const length = end - at;
    if (length > MAX_LINE_BYTES) yield { line };
    else {
      const text = body.toString('utf8', at, end > at && body[end - 1] === 0x0d ? end - 1 : end);
      if (text.trim() !== '') yield { line, text };
    }
    at = end + 1;
    sinceTurn += length + 1;
    if (sinceTurn >= TURN_BYTES) {
      sinceTurn = 0;
      await nextTurn();
    }
  }
}

/** The type a line names, read cheaply: an export writes `{"type":"…"` first; anything else is parsed. */
export function typeOf(text: string): string | undefined {
  const m = /^\s*\{\s*"type"\s*:\s*"([a-z]+)"/.exec(text);
  if (m) return m[1];
  try {
    const value = JSON.parse(text) as { type?: unknown };
    return typeof value?.type === 'string' ? value.type : undefined;
  } catch {
    return undefined;
  }
}

export interface ReadBatch {
  lines: ParsedLine[];
  /** The type of the batch's records (undefined when every line of it is rejected). */
  type?: RecordType;
  lastLine: number;
}

function lineOf(raw: RawLine): ParsedLine {
  return raw.text === undefined ? rejected(raw.line, 'row', 'row_too_big', { limit: MAX_LINE_BYTES }) : parseLine(raw.line, raw.text);
}

/**
 * The file's lines read and checked, in batches of at most BATCH_RECORDS, each of one record type
 * (rejected lines go with the batch they fall in), in file order.
 */
export async function* exportBatches(file: Buffer): AsyncGenerator<ReadBatch> {
  let batch: ReadBatch = { lines: [], lastLine: 0 };
  for await (const raw of exportLines(checkExportFile(file))) {
    const parsed = lineOf(raw);
    const switches = parsed.ok && batch.type !== undefined && parsed.type !== batch.type;
    if (batch.lines.length >= BATCH_RECORDS || switches) {
      // A turn between batches too: on the embedded engine a batch's writes hold the loop while they run.
      await nextTurn();
      yield batch;
      batch = { lines: [], lastLine: 0 };
    }
    batch.lines.push(parsed);
    batch.lastLine = raw.line;
    if (parsed.ok) batch.type = parsed.type;
  }
  if (batch.lines.length > 0) yield batch;
}
