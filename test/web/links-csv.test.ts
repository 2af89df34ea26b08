/**
 * The Links export's CSV, pure functions run without a browser: the RFC 4180 writer (quotes,
 * doubled quotes, commas and line ends inside fields, CRLF), its formula guard (the same as the
 * server's CSV), its round trip through a CSV reader (csv-parse, the server's) as a fast-check
 * property, a link as an export row, and the API message's item prefix dropped (where an error
 * points is test/web/api-error.test.ts).
 */
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { guardFormula as serverGuard } from '../../src/core/csv.js';
import { guardFormula, toCsv } from '../../web/src/pages/links/csv.js';
import { COLUMNS, linkToRow, withoutIndex, type Link } from '../../web/src/pages/links/rows.js';

/** Records as a spreadsheet reads them (a BOM dropped, rows of any length). */
const readCsv = (text: string): string[][] => parse(text, { bom: true, relax_column_count: true });

const C = '0191d8a0-0000-7000-8000-000000000001';
const T = '0191d8a0-0000-7000-8000-000000000002';

describe('toCsv (RFC 4180)', () => {
  it('writes CRLF records, quoting only what must be', () => {
    expect(toCsv([['a', 'b,c', 'd"e', 'f\ng', ' h'], ['', 'خصم']])).toBe('a,"b,c","d""e","f\ng"," h"\r\n,خصم\r\n');
  });

  it('guards a value beginning with =, +, -, @, TAB or CR with a leading quote, as the server does', () => {
    expect(toCsv([['=HYPERLINK("https://evil.example/")', '+1', '-2', '@SUM(A1)', '\tx', '\rx', "'=already", 'a=b', ' =x', '']])).toBe(
      `"'=HYPERLINK(""https://evil.example/"")",'+1,'-2,'@SUM(A1),'\tx,"'\rx",'=already,a=b," =x",\r\n`,
    );
    // The same decision as src/core/csv.ts for any text, formula starts included.
    const text = fc.oneof(fc.string({ unit: fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', "'", ' ', 'a', 'خ') }), fc.string({ unit: 'grapheme' }));
    fc.assert(fc.property(text, (value) => {
        expect(guardFormula(value)).toBe(serverGuard(value));
      }),
    );
  });

  it('property: whatever the fields, reading what was written gives them back (a formula start with its guard quote)', () => {
    const field = fc.string({ unit: fc.constantFrom('a', 'Z', ',', '"', '\r', '\n', ' ', 'خ', '=', '+', '-', '@', '\t', "'", '\\') });
    // A record of one empty field is a blank line, which readers skip: at least one non-empty field.
    const record = fc.array(field, { minLength: 1, maxLength: 5 }).filter((r) => r.length > 1 || r[0] !== '');
    fc.assert(fc.property(fc.array(record, { maxLength: 6 }), (records) => {
        expect(readCsv(toCsv(records))).toEqual(records.map((r) => r.map(guardFormula)));
      }),
    );
  });
});

describe('linkToRow', () => {
  it('writes a link as a row of the export\'s columns, read back as it was; the password is never exported', () => {
    const link = {
      id: 'x', shortUrl: 'https://go/abc', qrCode: '', url: 'https://e.com/a,b', title: 'A "quoted", title', description: null, image: null,
      utm: { source: 's', campaign: 'c' }, expiresAt: '2031-05-01T10:00:00.000Z', expiredUrl: null, password: 'never exported', cloaked: true,
      ios: 'https://apps.apple.com/x', android: null, geo: { DE: 'https://e.de/' }, collectionId: C, tagIds: [T, C], externalId: 'ext-1',
      tenantId: null, partnerId: null, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
    } as unknown as Link;
    const csv = toCsv([[...COLUMNS], linkToRow(link)]);
    expect(csv).not.toContain('never exported');
    const [header, row] = readCsv(csv) as [string[], string[]];
    const cell = (name: string) => row[header.indexOf(name)];
    expect(header).toEqual([...COLUMNS]);
    expect([cell('url'), cell('title'), cell('tagIds'), cell('utm_source'), cell('utm_campaign'), cell('cloaked'), cell('geo'), cell('image')]).toEqual([
      'https://e.com/a,b', 'A "quoted", title', `${T} ${C}`, 's', 'c', 'true', '{"DE":"https://e.de/"}', '',
    ]);
  });
});

describe('withoutIndex', () => {
  it('drops the item prefix of an API message (the report names the row)', () => {
    expect(withoutIndex('قيمة غير صالحة في [3].url: يجب أن يكون رابط https.')).toBe('قيمة غير صالحة في url: يجب أن يكون رابط https.');
  });
});
