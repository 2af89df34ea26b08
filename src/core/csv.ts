import { Readable } from 'node:stream';

/**
 * CSV as RFC 4180 writes it (CRLF line ends, a field with a comma, quote, CR or LF quoted,
 * quotes doubled), with one guard of our own: spreadsheets run a cell that begins with
 * =, +, -, @, TAB or CR as a formula, so such a text value gets a single quote in front
 * (`-1` as text reads `'-1`). Numbers are written as they are (a negative number stays one).
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** A text value as a spreadsheet may open it safely: a formula start gets a leading quote. */
export function guardFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** One field: null/undefined empty, numbers and bigints as digits, objects as JSON text, text guarded and quoted. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  const text = guardFormula(typeof value === 'string' ? value : JSON.stringify(value));
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, CRLF-terminated. */
export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

/**
 * A CSV document as a stream: the header, then each page of records as one chunk. Pages are
 * pulled only when the reader wants more, so one page at most is held, and the event loop is
 * free between them.
 */
export function csvStream<T>(columns: readonly (keyof T & string)[], pages: AsyncIterable<T[]>): Readable {
  async function* chunks() {
    yield csvLine(columns);
    for await (const page of pages) {
      if (page.length > 0) yield page.map((r) => csvLine(columns.map((c) => r[c]))).join('');
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}

/**
 * The rows an export covers, from the URL as the client sent it (the validator fills in a
 * default `take`, so the parsed query cannot tell): `take` only when the client gave one.
 */
export function csvWindow(url: string, q: { take: number; skip: number }): { take?: number; skip: number } {
  const at = url.indexOf('?');
  const given = new URLSearchParams(at < 0 ? '' : url.slice(at + 1));
  return given.has('take') ? { take: q.take, skip: q.skip } : { skip: q.skip };
}
