/**
 * Shlink. Where the format is documented: the web client's "Export" button on the short URLs
 * list (shlinkio/shlink-web-component, src/short-urls/helpers/ExportShortUrlsBtn.tsx, the
 * `ExportableShortUrl` of src/short-urls/data/index.ts, written by @json2csv/plainjs: every text
 * quoted): `createdAt` (the API's `dateCreated`, ATOM with an offset), `domain`, `shortCode`,
 * `shortUrl`, `longUrl`, `title`, `tags` (joined by "|"), `visits`. Fixture re-saved with BOM, CRLF.
 */
import { describe, expect, it } from 'vitest';
import { detectSource } from '../../../src/modules/imports/read-csv.js';
import { failed, fixture, readAll } from './read.js';

describe('a Shlink export', () => {
  it('reads record by record: offsets to UTC, short codes differing only by case are two links', async () => {
    expect(await readAll(fixture('shlink.csv'), { source: 'shlink' })).toEqual([
      {
        ok: true,
        row: {
          line: 2,
          url: 'https://example.com/a',
          title: 'Docs, guides & more',
          tags: ['docs', 'guides'],
          utm: {},
          createdAt: '2024-05-01T10:20:30.000Z',
          shortUrl: 'https://s.test/abc123',
        },
      },
      {
        ok: true,
        row: {
          line: 3,
          url: 'https://example.com/b',
          title: 'مرحبا 👋',
          tags: ['عربي', 'Docs'],
          utm: {},
          createdAt: '2024-05-02T00:00:00.000Z',
          shortUrl: 'https://s.test/CaseA',
        },
      },
      { ok: true, row: { line: 4, url: 'https://example.com/c', tags: [], utm: {}, createdAt: '2024-05-02T00:00:00.000Z', shortUrl: 'https://s.test/casea' } },
      failed(5, 'url', 'https_required'),
    ]);
  });

  it('builds the old short URL from domain and shortCode when shortUrl is empty', async () => {
    const file = '"createdAt","domain","shortCode","shortUrl","longUrl"\n"2024-05-01T12:20:30+02:00","S.Test","Xy","","https://example.com/x"\n';
    expect(await readAll(file, { source: 'shlink' })).toEqual([
      { ok: true, row: { line: 2, url: 'https://example.com/x', tags: [], utm: {}, createdAt: '2024-05-01T10:20:30.000Z', shortUrl: 'https://s.test/Xy' } },
    ]);
  });

  it('is recognised from its columns', () => {
    expect(detectSource(fixture('shlink.csv').toString('utf8'))).toBe('shlink');
  });
});
