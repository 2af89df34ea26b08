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
import { linksCsv } from '../../web/src/pages/links/export-csv.js';
import { majorUnits as decimalOf } from '../../web/src/ui/money.js';
import { COLUMNS, linkToRow, withoutIndex, type Link } from '../../web/src/pages/links/rows.js';
import type { LinkRow } from '../../web/src/pages/links/stats.js';

/** Records as a spreadsheet reads them (a BOM dropped, rows of any length). */
const readCsv = (text: string): string[][] => parse(text, { bom: true, relax_column_count: true });

const C = '0191d8a0-0000-7000-8000-000000000001';
const T = '0191d8a0-0000-7000-8000-000000000002';

describe('toCsv (RFC 4180)', () => {
  it('writes CRLF records, quoting only what must be', () => {
    expect(
      toCsv([
        ['a', 'b,c', 'd"e', 'f\ng', ' h'],
        ['', 'خصم'],
      ]),
    ).toBe('a,"b,c","d""e","f\ng"," h"\r\n,خصم\r\n');
  });

  it('guards a value beginning with =, +, -, @, TAB or CR with a leading quote, as the server does', () => {
    expect(toCsv([['=HYPERLINK("https://evil.example/")', '+1', '-2', '@SUM(A1)', '\tx', '\rx', "'=already", 'a=b', ' =x', '']])).toBe(
      `"'=HYPERLINK(""https://evil.example/"")",'+1,'-2,'@SUM(A1),'\tx,"'\rx",'=already,a=b," =x",\r\n`,
    );
    // The same decision as src/core/csv.ts for any text, formula starts included.
    const text = fc.oneof(fc.string({ unit: fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', "'", ' ', 'a', 'خ') }), fc.string({ unit: 'grapheme' }));
    fc.assert(
      fc.property(text, (value) => {
        expect(guardFormula(value)).toBe(serverGuard(value));
      }),
    );
  });

  it('property: whatever the fields, reading what was written gives them back (a formula start with its guard quote)', () => {
    const field = fc.string({ unit: fc.constantFrom('a', 'Z', ',', '"', '\r', '\n', ' ', 'خ', '=', '+', '-', '@', '\t', "'", '\\') });
    // A record of one empty field is a blank line, which readers skip: at least one non-empty field.
    const record = fc.array(field, { minLength: 1, maxLength: 5 }).filter((r) => r.length > 1 || r[0] !== '');
    fc.assert(
      fc.property(fc.array(record, { maxLength: 6 }), (records) => {
        expect(readCsv(toCsv(records))).toEqual(records.map((r) => r.map(guardFormula)));
      }),
    );
  });
});

describe('linkToRow', () => {
  it("writes a link as a row of the export's columns, read back as it was; the password is never exported", () => {
    const link = {
      id: 'x',
      shortUrl: 'https://go/abc',
      qrCode: '',
      url: 'https://e.com/a,b',
      title: 'A "quoted", title',
      description: null,
      image: null,
      utm: { source: 's', campaign: 'c' },
      expiresAt: '2031-05-01T10:00:00.000Z',
      expiredUrl: null,
      password: 'never exported',
      cloaked: true,
      ios: 'https://apps.apple.com/x',
      android: null,
      geo: { DE: 'https://e.de/' },
      collectionId: C,
      tagIds: [T, C],
      externalId: 'ext-1',
      tenantId: null,
      partnerId: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    } as unknown as Link;
    const csv = toCsv([[...COLUMNS], linkToRow(link)]);
    expect(csv).not.toContain('never exported');
    const [header, row] = readCsv(csv) as [string[], string[]];
    const cell = (name: string) => row[header.indexOf(name)];
    expect(header).toEqual([...COLUMNS]);
    expect([cell('url'), cell('title'), cell('tagIds'), cell('utm_source'), cell('utm_campaign'), cell('cloaked'), cell('geo'), cell('image')]).toEqual([
      'https://e.com/a,b',
      'A "quoted", title',
      `${T} ${C}`,
      's',
      'c',
      'true',
      '{"DE":"https://e.de/"}',
      '',
    ]);
  });
});

describe('the export for a marketer', () => {
  const P = '0191d8a0-0000-7000-8000-000000000003';
  const names = {
    collections: new Map([[C, 'Spring']]),
    tags: new Map([
      [T, 'Print, flyers'],
      [C, 'خصم'],
    ]),
    partners: new Map([[P, 'Ada']]),
  };
  const link = (id: string, stats?: LinkRow['stats']): LinkRow =>
    ({
      id,
      shortUrl: `https://go/${id}`,
      url: 'https://e.com/',
      collectionId: C,
      tagIds: [T, C],
      partnerId: P,
      utm: null,
      geo: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      stats,
    }) as unknown as LinkRow;

  it('names the collection, the tags (as the import reads them) and the partner beside their ids', () => {
    const [header, row] = readCsv(linksCsv([link('a')], names, false)) as [string[], string[]];
    const cell = (name: string) => row[header.indexOf(name)];
    expect([cell('collection'), cell('collectionId'), cell('tags'), cell('tagIds'), cell('partner'), cell('partnerId')]).toEqual([
      'Spring',
      C,
      'Print, flyers, خصم',
      `${T} ${C}`,
      'Ada',
      P,
    ]);
    expect(header).not.toContain('clicks');
  });

  it('with figures: clicks, leads, sales, and one revenue column per currency in its own unit, never added across currencies', () => {
    const csv = linksCsv(
      [
        link('a', { clicks: 1200, leads: 30, sales: 4, revenue: { usd: 1999, jpy: 500 }, refunded: { usd: 0, jpy: 0 } }),
        link('b', { clicks: 0, leads: 0, sales: 1, revenue: { kwd: 1234, usd: -50 }, refunded: { kwd: 0, usd: 100 } }),
        link('c', { clicks: 7, leads: 0, sales: 0, revenue: {}, refunded: {} }),
      ],
      names,
      true,
    );
    const [header, ...rows] = readCsv(csv) as string[][];
    expect(header!.slice(COLUMNS.length)).toEqual(['clicks', 'leads', 'sales', 'revenue_jpy', 'revenue_kwd', 'revenue_usd']);
    expect(rows.map((r) => r.slice(COLUMNS.length))).toEqual([
      ['1200', '30', '4', '500', '', '19.99'],
      ['0', '0', '1', '', '1.234', '-0.50'],
      ['7', '0', '0', '', '', ''],
    ]);
  });

  it('decimalOf writes minor units exactly, whatever their size', () => {
    expect([decimalOf(5, 'usd'), decimalOf(100, 'eur'), decimalOf(-1, 'usd'), decimalOf(0, 'usd'), decimalOf(12, 'xyz')]).toEqual([
      '0.05',
      '1.00',
      '-0.01',
      '0.00',
      '0.12',
    ]);
    fc.assert(
      fc.property(fc.integer({ min: -1e15, max: 1e15 }), (minor) => {
        expect(Math.round(Number(decimalOf(minor, 'usd')) * 100)).toBe(minor);
      }),
    );
  });
});

describe('withoutIndex', () => {
  it('drops the item prefix of an API message (the report names the row)', () => {
    expect(withoutIndex('قيمة غير صالحة في [3].url: يجب أن يكون رابط https.')).toBe('قيمة غير صالحة في url: يجب أن يكون رابط https.');
  });
});
