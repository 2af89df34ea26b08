/** Creation dates as the services write them, to ISO 8601 UTC (src/modules/imports/dates.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseImportDate } from '../../../src/modules/imports/dates.js';

describe('parseImportDate', () => {
  it.each([
    ['2024-05-01T10:20:30.000Z', '2024-05-01T10:20:30.000Z'], // Dub, Rebrandly
    ['2024-05-01T12:20:30+02:00', '2024-05-01T10:20:30.000Z'], // Shlink (ATOM)
    ['2020-10-26T17:20:40+0000', '2020-10-26T17:20:40.000Z'], // Bitly API
    ['2024-05-01T10:20:30-0530', '2024-05-01T15:50:30.000Z'],
    ['2024-05-01 10:20:30', '2024-05-01T10:20:30.000Z'], // YOURLS, spreadsheets: UTC
    ['2024-05-01', '2024-05-01T00:00:00.000Z'],
    ['5/1/2024', '2024-05-01T00:00:00.000Z'], // month first
    ['12/31/2023 11:59 PM', '2023-12-31T23:59:00.000Z'],
    ['1/2/2024 12:00:05 AM', '2024-01-02T00:00:05.000Z'],
    ['1714558830', '2024-05-01T10:20:30.000Z'], // Unix seconds
    ['1714558830123', '2024-05-01T10:20:30.123Z'], // Unix milliseconds
  ])('%s → %s', (text, iso) => {
    expect(parseImportDate(text)).toBe(iso);
  });

  it.each(['yesterday', '2024-02-30', '2024-13-01', '2024-05-01T24:00:00Z', '13/1/2024', '1/1/2024 13:00 PM', '2024-05-01T10:20:30+2', '12345678901'])(
    'refuses %s',
    (text) => {
      expect(parseImportDate(text)).toBeUndefined();
    },
  );

  it('reads back any instant it writes', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T23:59:59Z'), noInvalidDate: true }), (d) => {
        expect(parseImportDate(d.toISOString())).toBe(d.toISOString());
      }),
    );
  });
});
