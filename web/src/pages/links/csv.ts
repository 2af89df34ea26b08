/**
 * The Links export's CSV as RFC 4180 writes it: records end with CRLF, fields separated by
 * commas, a field holding a comma, a quote or a line end is quoted and its quotes doubled; a
 * value that begins like a formula gets a leading quote, as the server's CSV does. Pure
 * functions, so they are tested without a browser.
 */

/**
 * A text value as a spreadsheet may open it safely, as the server's CSV writes it (src/core/csv.ts):
 * spreadsheets run a cell that begins with =, +, -, @, TAB or CR as a formula, so such a value gets a
 * single quote in front (`=1+1` is written `'=1+1`; a file imported again keeps the quote).
 */
export function guardFormula(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** A plain decimal number: no formula, written as it is (a negative figure), as the server writes numbers. */
const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/;

/** One field, formula-guarded (unless a plain number in a column of figures), then quoted when it must be. */
function csvField(value: string, figure: boolean): string {
  const text = figure && PLAIN_NUMBER.test(value) ? value : guardFormula(value);
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV text of these records, CRLF after each; `figuresFrom`: the first column of figures (numbers written as they are). */
export function toCsv(records: readonly (readonly string[])[], figuresFrom = Infinity): string {
  return records.map((r) => r.map((v, i) => csvField(v, i >= figuresFrom)).join(',') + '\r\n').join('');
}
