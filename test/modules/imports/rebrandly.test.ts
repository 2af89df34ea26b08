/**
 * Rebrandly. Its app has no export; links are exported through its API, one column per field of
 * the Link object (developers.rebrandly.com/docs/link-entity and /docs/list-your-links, as
 * URLR's guide docs.urlr.me/migration/rebrandly and the rebrandly-links-export tool do): `id`,
 * `title`, `slashtag`, `destination`, `shortUrl` (without scheme: `rebrand.ly/burn10M`), `domain`
 * (its `fullName`, or the object as JSON), `createdAt` (`2016-07-13T10:54:12.000Z`). Fixture
 * re-saved with BOM, CRLF.
 */
import { describe, expect, it } from 'vitest';
import { detectSource } from '../../../src/modules/imports/read-csv.js';
import { failed, fixture, readAll } from './read.js';

describe('a Rebrandly export', () => {
  it('reads record by record: scheme-less short URLs, slashtag + domain when shortUrl is empty', async () => {
    expect(await readAll(fixture('rebrandly.csv'), { source: 'rebrandly' })).toEqual([
      {
        ok: true,
        row: {
          line: 2,
          url: 'https://www.wired.com/2016/07/ferrari-laferrari-spider-convertible-photos-specs/',
          title: 'The LaFerrari Supercar Convertible Is the New Best Way to Burn $1M | WIRED',
          tags: [],
          utm: {},
          createdAt: '2016-07-13T10:54:12.000Z',
          shortUrl: 'https://rebrand.ly/burn10M',
        },
      },
      {
        ok: true,
        row: {
          line: 3,
          url: 'https://www.dropbox.com/s/abc/myvid.mp4',
          title: 'Dropbox - myvid.mp4',
          tags: [],
          utm: {},
          createdAt: '2016-07-06T18:06:49.000Z',
          shortUrl: 'https://rebrand.ly/myvid',
        },
      },
      {
        ok: true,
        row: {
          line: 4,
          url: 'https://example.com/%D8%B9%D8%B1%D8%A8%D9%8A',
          title: 'رابط عربي، مع فاصلة, 🚀',
          tags: [],
          utm: {},
          createdAt: '2024-02-29T23:00:00.000Z',
          shortUrl: 'https://brand.ly/ar',
        },
      },
      failed(5, 'url', 'https_required'),
    ]);
  });

  it('is recognised from its columns', () => {
    expect(detectSource(fixture('rebrandly.csv').toString('utf8'))).toBe('rebrandly');
  });
});
