/**
 * A file's column names read in the browser, for when the server refuses the file as it is
 * guessed (no destination column found): the person can still say which column is the
 * destination. The header line only: its delimiter (`,` `;` or tab, the most frequent outside
 * quotes, as the server finds it) and quoted names with doubled quotes.
 */
export function headerColumns(text: string): string[] {
  const line = splitFirstLine(text.replace(/^\uFEFF/, ''));
  const delimiter = [',', ';', '\t'].map((d) => [d, count(line, d)] as const).sort((a, b) => b[1] - a[1])[0]![0];
  const columns: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted && c === '"' && line[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (c === '"' && (quoted || cell === '')) quoted = !quoted;
    else if (c === delimiter && !quoted) {
      columns.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  columns.push(cell.trim());
  return columns.filter((name) => name !== '');
}

/** The first line, a quoted line break kept inside it. */
function splitFirstLine(text: string): string {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') quoted = !quoted;
    else if (!quoted && (text[i] === '\n' || text[i] === '\r')) return text.slice(0, i);
  }
  return text;
}

function count(line: string, delimiter: string): number {
  let n = 0;
  let quoted = false;
  for (const c of line) {
    if (c === '"') quoted = !quoted;
    else if (c === delimiter && !quoted) n++;
  }
  return n;
}
