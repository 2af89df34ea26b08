/**
 * CSV as RFC 4180 writes it: records end with CRLF (LF alone and a missing last line end are
 * read too), fields separated by commas, a field holding a comma, a quote or a line end is
 * quoted and its quotes doubled; a value that begins like a formula gets a leading quote, as the
 * server's CSV does. Pure functions, so they are tested without a browser.
 */

/** The records of a CSV text (a leading byte-order mark is dropped; blank lines are skipped). */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRecord = () => {
    record.push(field);
    // A line with nothing on it is no record (a trailing line end, or blank lines).
    if (record.length > 1 || record[0] !== '') records.push(record);
    record = [];
    field = '';
  };
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else field += c;
      i++;
      continue;
    }
    if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' || c === '\n') {
      endRecord();
      if (c === '\r' && text[i + 1] === '\n') i++;
    } else field += c;
    i++;
  }
  if (field !== '' || record.length > 0) endRecord();
  return records;
}

/**
 * A text value as a spreadsheet may open it safely, as the server's CSV writes it (src/core/csv.ts):
 * spreadsheets run a cell that begins with =, +, -, @, TAB or CR as a formula, so such a value gets a
 * single quote in front (`=1+1` is written `'=1+1`; a file imported again keeps the quote).
 */
export function guardFormula(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** One field, formula-guarded, then quoted when it must be. */
export function csvField(value: string): string {
  const text = guardFormula(value);
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV text of these records, CRLF after each. */
export function toCsv(records: readonly (readonly string[])[]): string {
  return records.map((r) => r.map(csvField).join(',') + '\r\n').join('');
}
