/**
 * The CSV writer (src/core/csv.ts): what it writes, read back by a small RFC 4180 parser of the
 * test's own, gives the values back (text with a formula start carrying its guard quote), for
 * any text, including commas, quotes, CR, LF and non-ASCII.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvField, csvLine, csvStream, csvWindow, guardFormula } from '../../src/core/csv.js';

/** RFC 4180: records end in CRLF; a quoted field may hold anything, "" being one quote. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
          } else {
            i++;
            break;
          }
        } else field += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r') {
        if (text[i] === '"' || text[i] === '\n') throw new Error(`bare ${JSON.stringify(text[i])} at ${i}`);
        field += text[i++];
      }
    }
    record.push(field);
    if (text[i] === ',') i++;
    else if (text.startsWith('\r\n', i)) {
      records.push(record);
      record = [];
      i += 2;
    } else throw new Error(`unexpected ${JSON.stringify(text[i])} at ${i}`);
  }
  if (record.length > 0) throw new Error('last record without CRLF');
  return records;
}

const tricky = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', ',', '"', '\r', '\n', '=', '+', '-', '@', '\t', "'", ' ', 'é', '😀') }),
  fc.string({ unit: 'grapheme' }),
);

describe('csv writer', () => {
  it('round-trips any text through an RFC 4180 parser (guarded text keeps its value after the quote)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(tricky, { minLength: 1, maxLength: 6 }), { maxLength: 8 }), (rows) => {
        const text = rows.map(csvLine).join('');
        expect(parseCsv(text)).toEqual(rows.map((r) => r.map(guardFormula)));
      }),
      { numRuns: 500 },
    );
  });

  it('never lets a text cell start a formula', () => {
    fc.assert(
      fc.property(tricky, (value) => {
        const [[cell]] = parseCsv(csvLine([value])) as [[string]];
        expect(/^[=+\-@\t\r]/.test(cell)).toBe(false);
        if (/^[=+\-@\t\r]/.test(value)) expect(cell).toBe(`'${value}`);
        else expect(cell).toBe(value);
      }),
    );
  });

  it('writes numbers, bigints, null and objects as documented', () => {
    expect(csvField(-5)).toBe('-5');
    expect(csvField(2n ** 60n)).toBe('1152921504606846976');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField({ a: 'x,y' })).toBe('"{""a"":""x,y""}"');
    expect(csvField('=SUM(A1)')).toBe("'=SUM(A1)");
    expect(csvField('-1,2')).toBe(`"'-1,2"`);
    expect(csvField('a"b')).toBe('"a""b"');
    expect(csvField('plain')).toBe('plain');
    expect(csvLine(['a', 1, null])).toBe('a,1,\r\n');
  });

  it('streams a header and then each page', async () => {
    async function* pages() {
      yield [{ a: 1, b: 'x' }];
      yield [];
      yield [
        { a: 2, b: 'y\nz' },
        { a: 3, b: null },
      ];
    }
    let text = '';
    for await (const chunk of csvStream<{ a: number; b: string | null }>(['a', 'b'], pages())) text += String(chunk);
    expect(parseCsv(text)).toEqual([
      ['a', 'b'],
      ['1', 'x'],
      ['2', 'y\nz'],
      ['3', ''],
    ]);
  });

  it('reads take only when the client gave it', () => {
    expect(csvWindow('/api/x?format=csv', { take: 100, skip: 0 })).toEqual({ skip: 0 });
    expect(csvWindow('/api/x?format=csv&skip=3', { take: 100, skip: 3 })).toEqual({ skip: 3 });
    expect(csvWindow('/api/x?take=7&format=csv', { take: 7, skip: 0 })).toEqual({ take: 7, skip: 0 });
    expect(csvWindow('/api/x', { take: 100, skip: 0 })).toEqual({ skip: 0 });
  });
});
