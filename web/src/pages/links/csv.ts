/**
 * CSV as RFC 4180 writes it: records end with CRLF (LF alone and a missing last line end are
 * read too), fields separated by commas, a field holding a comma, a quote or a line end is
 * quoted and its quotes doubled. Pure functions, so they are tested without a browser.
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

/** One field, quoted when it must be. Values a spreadsheet would run as a formula are kept as they are: the file is data. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) || value !== value.trim() ? `"${value.replace(/"/g, '""')}"` : value;
}

/** A CSV text of these records, CRLF after each. */
export function toCsv(records: readonly (readonly string[])[]): string {
  return records.map((r) => r.map(csvField).join(',') + '\r\n').join('');
}
