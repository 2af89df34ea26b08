/**
 * `csv`: any file, columns found by name (operations.md §13), a mapping overriding any guess.
 * The YOURLS fixture is its `yourls_url` table exported by phpMyAdmin ("CSV", column names in
 * the first row: keyword, url, title, timestamp, ip, clicks — YOURLS's schema,
 * YOURLS/YOURLS includes/functions-install.php); it has no host, so its keyword is mapped to
 * externalId (re-importing updates rather than duplicates) and its timestamp to createdAt.
 */
import { describe, expect, it } from 'vitest';
import { detectSource } from '../../../src/modules/imports/read-csv.js';
import { failed, fixture, readAll } from './read.js';

describe('a plain CSV', () => {
  it('reads record by record: ; found from the header, every field by name, keyword + domain as the old short URL', async () => {
    expect(await readAll(fixture('csv.csv'), { source: 'csv' })).toEqual([
      {
        ok: true,
        row: {
          line: 2,
          url: 'https://example.com/spring',
          title: 'Spring; sale, 2024',
          description: 'Line one\r\nline two',
          tags: ['a', 'b', 'c'],
          collection: 'Spring 2024',
          utm: { source: 'newsletter', medium: 'email', campaign: 'spring', term: 'shoes', content: 'hero' },
          externalId: 'ext-1',
          shortUrl: 'https://xn--mgbh0fb.example/Spring',
        },
      },
      {
        ok: true,
        row: {
          line: 3,
          url: 'https://example.com/ar',
          title: 'عنوان عربي 😀',
          tags: [],
          collection: 'حملة',
          utm: {},
          externalId: 'ext-2',
          shortUrl: 'https://sho.rt/sale',
        },
      },
      failed(4, 'url', 'required'),
      // Line 5 is blank (only delimiters): no link, no error.
      failed(6, 'url', 'http_not_upgraded'),
    ]);
  });

  it('keeps formula-looking cells as text', async () => {
    const results = await readAll(fixture('csv.csv'), { source: 'csv', upgradeHttp: true });
    expect(results[3]).toEqual({ ok: true, row: { line: 6, url: 'https://example.com/plain', title: '@mention', description: '+plus', tags: [], utm: {} } });
  });

  it('reads a YOURLS export with a mapping', async () => {
    const file = fixture('yourls.csv');
    expect(detectSource(file.toString('utf8'))).toBe('csv');
    expect(await readAll(file, { source: 'csv', mapping: { createdAt: 'timestamp', externalId: 'keyword' } })).toEqual([
      {
        ok: true,
        row: {
          line: 2,
          url: 'https://example.com/spring',
          title: 'Spring, again',
          tags: [],
          utm: {},
          externalId: 'spring',
          createdAt: '2024-05-01T10:20:30.000Z',
        },
      },
      {
        ok: true,
        row: {
          line: 3,
          url: 'https://example.com/%D8%B9%D8%B1%D8%A8%D9%8A',
          title: 'مرحبا 🌍',
          tags: [],
          utm: {},
          externalId: 'ar',
          createdAt: '2024-05-02T00:00:00.000Z',
        },
      },
      failed(4, 'url', 'http_not_upgraded'),
    ]);
  });

  it('is recognised as csv from its columns', () => {
    expect(detectSource(fixture('csv.csv').toString('utf8'))).toBe('csv');
  });
});

describe('a mapping', () => {
  const file = 'url,target,Name,Old\r\nhttps://a.example/1,https://b.example/1,First,https://sho.rt/one\r\n,https://b.example/2,Second,\r\n';

  it('without it, the guesses: url, then target where url is empty', async () => {
    expect(await readAll(file, { source: 'csv' })).toEqual([
      { ok: true, row: { line: 2, url: 'https://a.example/1', tags: [], utm: {} } },
      { ok: true, row: { line: 3, url: 'https://b.example/2', tags: [], utm: {} } },
    ]);
  });

  it('overrides any guess, names compared ignoring case, spaces and underscores', async () => {
    expect(await readAll(file, { source: 'csv', mapping: { url: 'target', title: 'name', short_url: 'Old' } })).toEqual([
      { ok: true, row: { line: 2, url: 'https://b.example/1', title: 'First', tags: [], utm: {}, shortUrl: 'https://sho.rt/one' } },
      { ok: true, row: { line: 3, url: 'https://b.example/2', title: 'Second', tags: [], utm: {} } },
    ]);
  });

  it('an empty column name switches a guessed field off; the destination cannot be', async () => {
    const dub = 'Short link,Destination URL,Tags\nhttps://dub.sh/a,https://example.com/a,x\n';
    expect(await readAll(dub, { source: 'dub', mapping: { shortUrl: '', tags: '' } })).toEqual([
      { ok: true, row: { line: 2, url: 'https://example.com/a', tags: [], utm: {} } },
    ]);
    await expect(readAll(dub, { source: 'dub', mapping: { url: '' } })).rejects.toMatchObject({ code: 'import_no_destination' });
  });

  it("overrides a named source's columns", async () => {
    const dub = 'Short link,Destination URL,Note\nhttps://dub.sh/a,https://example.com/a,Hello\n';
    expect(await readAll(dub, { source: 'dub', mapping: { title: 'Note', shortUrl: 'Note' } })).toEqual([failed(2, 'shortUrl', 'short_url')]);
    expect(await readAll(dub, { source: 'dub', mapping: { title: 'Note' } })).toEqual([
      { ok: true, row: { line: 2, url: 'https://example.com/a', title: 'Hello', tags: [], utm: {}, shortUrl: 'https://dub.sh/a' } },
    ]);
  });
});
