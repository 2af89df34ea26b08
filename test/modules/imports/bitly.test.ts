/**
 * Bitly. Where the format is documented: the v4 API's Bitlink object (dev.bitly.com,
 * GET /v4/groups/{group_guid}/bitlinks; its CSV export `links_list` has the same fields):
 * `id`, `link`, `custom_bitlinks`, `long_url`, `title`, `archived`, `created_at`
 * (`2020-10-26T17:20:40+0000`), `tags`. The app's own export (Links → Export) is described only
 * by third parties: URLR's migration guide (docs.urlr.me/migration/bitly) names its `Link`,
 * `Custom Link` and `Destination URL` columns. The fixture is the API shape, as a spreadsheet
 * re-saves it (BOM, CRLF).
 */
import { describe, expect, it } from 'vitest';
import { detectSource } from '../../../src/modules/imports/read-csv.js';
import { failed, fixture, readAll } from './read.js';

describe('a Bitly export', () => {
  it('reads record by record: custom back-half over bit.ly link, +0000 dates, a multi-line title counted as one row', async () => {
    expect(await readAll(fixture('bitly.csv'), { source: 'bitly' })).toEqual([
      {
        ok: true,
        row: {
          line: 2,
          url: 'https://shop.example.com/spring?ref=a',
          title: 'Spring sale, 50% off',
          tags: ['sale', 'spring'],
          utm: {},
          createdAt: '2024-03-01T09:15:00.000Z',
          shortUrl: 'https://brand.link/Spring',
        },
      },
      {
        ok: true,
        row: {
          line: 3,
          url: 'https://example.com/ar/%D8%B1%D9%85%D8%B6%D8%A7%D9%86',
          title: 'عرض رمضان 🌙\r\nالجزء الثاني',
          tags: ['رمضان'],
          utm: {},
          createdAt: '2024-03-10T18:00:00.000Z',
          shortUrl: 'https://bit.ly/4Abc',
        },
      },
      failed(4, 'url', 'http_not_upgraded'),
      {
        ok: true,
        row: {
          line: 5,
          url: 'https://example.com/formula',
          title: '=HYPERLINK("https://evil.example")',
          tags: ['-draft', '+new'],
          utm: {},
          createdAt: '2024-01-02T03:04:05.000Z',
          shortUrl: 'https://brand.link/spring',
        },
      },
      failed(6, 'shortUrl', 'duplicate_in_file'),
    ]);
  });

  it('names the first line in the duplicate failure, in English and Arabic', async () => {
    const results = await readAll(fixture('bitly.csv'), { source: 'bitly' });
    expect(results[4]).toMatchObject({
      message: {
        en: 'Invalid shortUrl: repeats the old short URL of line 2 of this file.',
        ar: 'قيمة غير صالحة في shortUrl: يكرر الرابط المختصر القديم الوارد في السطر 2 من هذا الملف.',
      },
    });
  });

  it('with upgradeHttp the http destination becomes https', async () => {
    const results = await readAll(fixture('bitly.csv'), { source: 'bitly', upgradeHttp: true });
    expect(results[2]).toEqual({
      ok: true,
      row: {
        line: 4,
        url: 'https://old.example.com/page',
        title: 'He said "hi"',
        tags: [],
        utm: {},
        createdAt: '2023-12-31T23:59:59.000Z',
        shortUrl: 'https://bit.ly/5Qq',
      },
    });
  });

  it("reads the app's export columns (Link, Custom Link, Destination URL)", async () => {
    const file =
      'Link,Custom Link,Destination URL\r\nhttps://bit.ly/3ab,,https://example.com/a\r\nhttps://bit.ly/3cd,brand.link/Sale,https://example.com/b\r\n';
    expect(detectSource(file)).toBe('bitly');
    expect(await readAll(file, { source: 'bitly' })).toEqual([
      { ok: true, row: { line: 2, url: 'https://example.com/a', tags: [], utm: {}, shortUrl: 'https://bit.ly/3ab' } },
      { ok: true, row: { line: 3, url: 'https://example.com/b', tags: [], utm: {}, shortUrl: 'https://brand.link/Sale' } },
    ]);
  });

  it('is recognised from its columns', () => {
    expect(detectSource(fixture('bitly.csv').toString('utf8'))).toBe('bitly');
  });
});
