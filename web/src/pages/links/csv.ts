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

/** One field, formula-guarded, then quoted when it must be. */
function csvField(value: string): string {
  const text = guardFormula(value);
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV text of these records, CRLF after each. */
export function toCsv(records: readonly (readonly string[])[]): string {
  return records.map((r) => r.map(csvField).join(',') + '\r\n').join('');
}
