/**
 * The Links page's CSV pieces, pure functions run without a browser: the RFC 4180 reader and
 * writer (quotes, doubled quotes, commas and line ends inside fields, CRLF/LF, BOM), the
 * writer's formula guard (the same as the server's CSV), their round trip as a fast-check property, the rows an import makes of a file (row numbers as a
 * spreadsheet counts them, checks before sending, plan-gated columns) and the API message's item
 * prefix dropped (where an error points is test/web/api-error.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { guardFormula as serverGuard } from '../../src/core/csv.js';
import { PLAN_LIMITS, type Plan } from '../../src/core/plans.js';
import { guardFormula, parseCsv, toCsv } from '../../web/src/pages/links/csv.js';
import { COLUMNS, linkToRow, rowsToItems, withoutIndex, type Link } from '../../web/src/pages/links/rows.js';

const C = '0191d8a0-0000-7000-8000-000000000001';
const T = '0191d8a0-0000-7000-8000-000000000002';

describe('parseCsv / toCsv (RFC 4180)', () => {
  it('reads quoted fields with commas, doubled quotes and line ends; CRLF, LF and no final line end', () => {
    expect(parseCsv('a,b,c\r\n1,"x, y","say ""hi"""\r\n2,"line\r\nbreak",\r\n')).toEqual([
      ['a', 'b', 'c'],
      ['1', 'x, y', 'say "hi"'],
      ['2', 'line\r\nbreak', ''],
    ]);
    expect(parseCsv('a,b\n1,2')).toEqual([['a', 'b'], ['1', '2']]);
    expect(parseCsv('\uFEFFurl\r\n\r\nhttps://e.com/\r\n\n')).toEqual([['url'], ['https://e.com/']]);
    expect(parseCsv('')).toEqual([]);
    expect(parseCsv(',\r\n')).toEqual([['', '']]);
  });

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
        expect(parseCsv(toCsv(records))).toEqual(records.map((r) => r.map(guardFormula)));
      }),
    );
  });
});

/** The link features of a plan, as GET /api/me tells the dashboard (the server's own rule). */
const features = (plan: Plan) => [...PLAN_LIMITS[plan].features];

describe('rowsToItems', () => {
  it('makes link-create items, numbering rows as a spreadsheet (header = row 1)', () => {
    const records = parseCsv(
      [
        'URL,title,tagIds,utm_source,collectionId,shortUrl',
        'https://e.com/1,One,' + T + ',news,,https://go/x',
        'http://e.com/2,Two,,,,',
        ',Three,,,,',
        'https://e.com/4,Four,not-a-uuid,,' + C + ',',
      ].join('\r\n'),
    );
    const { items, problems } = rowsToItems(records, features('enterprise'), C);
    expect(items).toEqual([{ row: 2, item: { url: 'https://e.com/1', title: 'One', tagIds: [T], utm: { source: 'news' }, collectionId: C } }]);
    expect(problems).toEqual([
      { row: 3, field: 'url', problem: { key: 'https' } },
      { row: 4, field: 'url', problem: { key: 'required' } },
      { row: 5, field: 'tagIds', problem: { key: 'uuid' } },
    ]);
  });

  it('refuses what the plan lacks, before sending', () => {
    const records = [['url', 'password', 'expiresAt'], ['https://e.com/', 'secret', '2030-01-01T00:00:00Z']];
    expect(rowsToItems(records, features('free'), C).problems.map((p) => p.field)).toEqual(['expiresAt', 'password']);
    expect(rowsToItems(records, features('pro'), C).items[0]!.item).toMatchObject({ password: 'secret', expiresAt: '2030-01-01T00:00:00Z' });
  });

  it('without a collectionId column or a default collection, the collection is required; a file without url says so', () => {
    expect(rowsToItems([['url'], ['https://e.com/']], features('free'), undefined).problems).toEqual([{ row: 2, field: 'collectionId', problem: { key: 'required' } }]);
    expect(rowsToItems([['title'], ['x']], features('free'), C).missingUrlColumn).toBe(true);
  });

  it('an exported row imports again as the same link', () => {
    const link = {
      id: 'x', shortUrl: 'https://go/abc', qrCode: '', url: 'https://e.com/a,b', title: 'A "quoted", title', description: null, image: null,
      utm: { source: 's', campaign: 'c' }, expiresAt: '2031-05-01T10:00:00.000Z', expiredUrl: null, password: 'never exported', cloaked: true,
      ios: 'https://apps.apple.com/x', android: null, geo: { DE: 'https://e.de/' }, collectionId: C, tagIds: [T], externalId: 'ext-1',
      tenantId: null, partnerId: null, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
    } as unknown as Link;
    const csv = toCsv([[...COLUMNS], linkToRow(link)]);
    expect(csv).not.toContain('never exported');
    const { items, problems } = rowsToItems(parseCsv(csv), features('enterprise'), undefined);
    expect(problems).toEqual([]);
    expect(items[0]!.item).toEqual({
      url: 'https://e.com/a,b', title: 'A "quoted", title', externalId: 'ext-1', ios: 'https://apps.apple.com/x', collectionId: C, tagIds: [T],
      utm: { source: 's', campaign: 'c' }, expiresAt: '2031-05-01T10:00:00.000Z', cloaked: true, geo: { DE: 'https://e.de/' },
    });
  });
});

describe('withoutIndex', () => {
  it('drops the item prefix of an API message (the report names the row)', () => {
    expect(withoutIndex('قيمة غير صالحة في [3].url: يجب أن يكون رابط https.')).toBe('قيمة غير صالحة في url: يجب أن يكون رابط https.');
  });
});
