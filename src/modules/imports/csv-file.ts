import { isUtf8 } from 'node:buffer';
import { parse as parseSync } from 'csv-parse/sync';
import { AppError } from '../../core/errors.js';

/**
 * The file as a whole, before any row is read: its size, that it is UTF-8 text and not some other
 * format, and its first line (the column names, with the delimiter they are separated by).
 */

export const MAX_FILE_BYTES = 50 * 1024 * 1024;
/** A header line longer than this is no header: the file is not a CSV with named columns. */
const MAX_HEADER_BYTES = 64 * 1024;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export type Delimiter = ',' | ';' | '\t';
const DELIMITERS: readonly Delimiter[] = [',', ';', '\t'];

function notCsv(en: string, ar: string): AppError {
  return new AppError('import_not_csv', { detail: en, detailAr: ar });
}

/** The file without its UTF-8 byte-order mark. */
export function withoutBom(file: Buffer): Buffer {
  return file.subarray(0, 3).equals(UTF8_BOM) ? file.subarray(3) : file;
}

/** Size, encoding and emptiness; each check is one native pass, so even 50 MB takes milliseconds. */
export function checkFile(file: Buffer): Buffer {
  if (file.length > MAX_FILE_BYTES) throw new AppError('import_too_large', { size: file.length, limit: MAX_FILE_BYTES });
  if ((file[0] === 0xff && file[1] === 0xfe) || (file[0] === 0xfe && file[1] === 0xff)) {
    throw notCsv('it is UTF-16 text', 'إنه نص بترميز UTF-16');
  }
  if (file.includes(0)) throw notCsv('it holds binary data (NUL bytes)', 'يحتوي على بيانات ثنائية (بايتات NUL)');
  if (!isUtf8(file)) throw notCsv('it is not valid UTF-8 text', 'ليس نصًا صالحًا بترميز UTF-8');
  const body = withoutBom(file);
  if (body.toString('utf8', 0, Math.min(body.length, 4096)).trim() === '' && isBlank(body)) throw new AppError('import_empty');
  const first = body.toString('utf8', 0, 64).trimStart()[0];
  if (first === '{' || first === '[') {
    throw notCsv('it is JSON; a Linktrail export is read with source=linktrail', 'إنه JSON؛ يُقرأ ملف تصدير Linktrail عبر source=linktrail');
  }
  return body;
}

function isBlank(body: Buffer): boolean {
  for (const byte of body) if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return false;
  return true;
}

/** The bytes of the first line: up to the first CR or LF outside quotes. */
function headerBytes(body: Buffer): Buffer {
  let quoted = false;
  const end = Math.min(body.length, MAX_HEADER_BYTES + 1);
  for (let i = 0; i < end; i++) {
    const byte = body[i];
    if (byte === 0x22) quoted = !quoted;
    else if (!quoted && (byte === 0x0a || byte === 0x0d)) return body.subarray(0, i);
  }
  if (body.length > MAX_HEADER_BYTES) {
    throw notCsv('its first line, which must name the columns, is longer than 64 KB', 'سطره الأول، الذي يجب أن يسمّي الأعمدة، أطول من 64 كيلوبايت');
  }
  return body;
}

/** The delimiter the header uses most outside quotes (`,` when it has none, a one-column file). */
export function detectDelimiter(headerLine: string): Delimiter {
  const counts = new Map<Delimiter, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const ch of headerLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && counts.has(ch as Delimiter)) counts.set(ch as Delimiter, counts.get(ch as Delimiter)! + 1);
  }
  let best: Delimiter = ',';
  for (const d of DELIMITERS) if (counts.get(d)! > counts.get(best)!) best = d;
  return best;
}

/** The column names of one header line, trimmed. */
export function columnsOf(headerLine: string, delimiter: Delimiter): string[] {
  const records = parseSync(headerLine, { delimiter, relax_quotes: true, relax_column_count: true, bom: true }) as string[][];
  return (records[0] ?? []).map((name) => name.trim());
}

/** The header of a file, for previews and for the reader. Throws the file-level AppErrors. */
export function headerOf(file: Buffer): { delimiter: Delimiter; columns: string[] } {
  const body = checkFile(file);
  const line = headerBytes(body).toString('utf8');
  if (line.trim() === '') {
    throw notCsv('its first line is empty; it must name the columns', 'سطره الأول فارغ؛ يجب أن يسمّي الأعمدة');
  }
  const delimiter = detectDelimiter(line);
  return { delimiter, columns: columnsOf(line, delimiter) };
}
