/**
 * Dub. Where the format is documented: dubinc/dub, `GET /api/links/export`
 * (apps/web/app/api/links/export/route.ts) writes the labels of `exportLinksColumns`
 * (apps/web/lib/zod/schemas/links.ts) with json-2-csv: `Short link`, `Destination URL`,
 * `Clicks`, `Created at` (ISO 8601), and on request `Link ID`, `Updated at`, `Tags` (joined by
 * ", "), `Archived`; text beginning with = + - @ gets a guard quote (`'-sale`). json-2-csv writes
 * LF and no BOM; the fixture is as a spreadsheet re-saves it (BOM, CRLF), and the test reads both.
 */
import { describe, expect, it } from 'vitest';
import { detectSource } from '../../../src/modules/imports/read-csv.js';
import { failed, fixture, readAll } from './read.js';

const expected = [
  {
    ok: true,
    row: {
      line: 2,
      url: 'https://example.com/launch?utm_source=x&a=1',
      tags: ['launch', 'q2'],
      utm: {},
      createdAt: '2024-05-01T10:20:30.000Z',
      shortUrl: 'https://dub.sh/Launch',
    },
  },
  {
    ok: true,
    row: {
      line: 3,
      url: 'https://example.com/ar/%F0%9F%8E%89',
      tags: ['عروض', 'Launch'],
      utm: {},
      createdAt: '2024-05-03T08:00:00.000Z',
      shortUrl: 'https://go.acme.com/%D8%B9%D8%B1%D8%B6',
    },
  },
  // A domain's root link (`_root`) is exported as the bare host: no path to alias.
  failed(4, 'shortUrl', 'short_url'),
  // The guard quote Dub writes before "-sale" is not part of the tag.
  {
    ok: true,
    row: { line: 5, url: 'https://example.com/n', tags: ['-sale', 'spring'], utm: {}, createdAt: '2024-05-05T00:00:00.000Z', shortUrl: 'https://dub.sh/neg' },
  },
];

describe('a Dub export', () => {
  it('reads record by record', async () => {
    expect(await readAll(fixture('dub.csv'), { source: 'dub' })).toEqual(expected);
  });

  it('reads it as Dub writes it too (LF, no BOM)', async () => {
    const asWritten = fixture('dub.csv')
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .replaceAll('\r\n', '\n');
    expect(await readAll(asWritten, { source: 'dub' })).toEqual(expected);
  });

  it('is recognised from its columns', () => {
    expect(detectSource(fixture('dub.csv').toString('utf8'))).toBe('dub');
  });
});
