/**
 * Issue 43 item 4 over HTTP: an import keeps what its preview shows. A public shortener's host
 * (bit.ly…) is never claimed and its short URLs become no aliases, the preview saying so; a row's
 * creation date becomes the created link's createdAt, a date out of range listed, not kept.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { freshHost } from '../domains/helpers.js';
import { importClient } from './job-helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

/** A Bitly API export (dev.bitly.com Bitlink fields): two rows on bit.ly, one on a custom domain, one on tinyurl.com. */
function bitlyFile(
  custom: string,
  dates: string[] = ['2020-10-26T17:20:40+0000', '2021-01-02T03:04:05+0000', '2022-05-06T07:08:09+0000', '2023-01-01T00:00:00+0000'],
) {
  return [
    'id,link,custom_bitlinks,long_url,title,created_at',
    `bit.ly/3aaa,https://bit.ly/3aaa,,https://example.com/a,A,${dates[0]}`,
    `bit.ly/3bbb,https://bit.ly/3bbb,,https://example.com/b,B,${dates[1]}`,
    `bit.ly/3ccc,https://bit.ly/3ccc,https://${custom}/spring,https://example.com/c,C,${dates[2]}`,
    `x,https://tinyurl.com/y7abc,,https://example.com/d,D,${dates[3]}`,
    '',
  ].join('\r\n');
}

interface Link {
  url: string;
  aliases: string[];
  createdAt: string;
}

describe('public shorteners', () => {
  it('the preview names bit.ly and tinyurl.com as public shorteners, with what becomes of their links', async () => {
    const ws = await t.workspace();
    const c = importClient(t, ws);
    const res = await c.send('POST', '/api/imports/preview?source=bitly', { payload: bitlyFile(freshHost('brand')), type: 'text/csv' });
    expect(res.statusCode, res.body).toBe(200);
    const preview = res.json<{ publicShorteners: { host: string; rows: number; message: { en: string; ar: string } }[] }>();
    expect(preview.publicShorteners.map((p) => [p.host, p.rows])).toEqual([
      ['bit.ly', 2],
      ['tinyurl.com', 1],
    ]);
    expect(preview.publicShorteners[0]!.message.en).toContain('keep working at the old service, not here');
    expect(preview.publicShorteners[0]!.message.ar).toContain('الخدمة القديمة');
  });

  it('imports their links without aliases and claims none of their hosts; the custom domain is claimed and aliased', async () => {
    const ws = await t.workspace();
    const c = importClient(t, ws);
    const custom = freshHost('brand');
    const job = await c.run('source=bitly&collection=From%20Bitly', bitlyFile(custom));
    expect(job).toMatchObject({ status: 'done', total: 4, created: 4, failed: 0 });
    const links = (await c.send('GET', '/api/links?take=100')).json<Link[]>();
    const byUrl = new Map(links.map((l) => [l.url, l.aliases]));
    expect(byUrl.get('https://example.com/a')).toEqual([]);
    expect(byUrl.get('https://example.com/b')).toEqual([]);
    expect(byUrl.get('https://example.com/c')).toEqual([`https://${custom}/spring`]);
    expect(byUrl.get('https://example.com/d')).toEqual([]);
    const domains = (await c.send('GET', '/api/domains')).json<{ host: string; status: string }[]>();
    expect(domains.map((d) => `${d.host} ${d.status}`)).toEqual([`${custom} pending`]);
    expect(await c.errors(job.id)).toBe('line,field,reason,error,id,link,custom_bitlinks,long_url,title,created_at\r\n');

    // The same file again changes nothing.
    const again = await c.run('source=bitly&collection=From%20Bitly', bitlyFile(custom));
    expect(again).toMatchObject({ status: 'done', created: 0, updated: 0, unchanged: 4, failed: 0 });
  });

  it('a linktrail export holding a bit.ly alias imports the link without it, said in the errors CSV', async () => {
    const ws = await t.workspace();
    const c = importClient(t, ws);
    const collection = { type: 'collection', id: crypto.randomUUID(), name: 'Old' };
    const link = {
      type: 'link',
      id: crypto.randomUUID(),
      url: 'https://example.com/x',
      collectionId: collection.id,
      aliases: ['https://bit.ly/legacy1'],
      createdAt: '2021-01-01T00:00:00.000Z',
      updatedAt: '2021-01-01T00:00:00.000Z',
    };
    const file = `${JSON.stringify(collection)}\n${JSON.stringify(link)}\n`;
    const res = await c.send('POST', '/api/imports?source=linktrail', { payload: file, type: 'application/x-ndjson' });
    expect(res.statusCode, res.body).toBe(202);
    const job = await c.finished(res.json<{ id: string }>().id);
    expect(job, JSON.stringify(job)).toMatchObject({ status: 'done', created: 2, failed: 0 });
    const links = (await c.send('GET', '/api/links?take=100')).json<Link[]>();
    expect(links.map((l) => l.aliases)).toEqual([[]]);
    expect(await c.errors(job.id)).toContain('alias_host_public');
    expect((await c.send('GET', '/api/domains')).json<unknown[]>()).toEqual([]);
  });
});

describe('creation dates', () => {
  it("a row's date becomes the created link's createdAt; one before 2000 or in the future is listed and the import's time kept", async () => {
    const ws = await t.workspace();
    const c = importClient(t, ws);
    const file = bitlyFile(freshHost('brand'), [
      '2020-10-26T17:20:40+0000',
      '2999-01-01T00:00:00+0000',
      '1999-12-31T23:59:59+0000',
      '2000-01-01T00:00:00+0000',
    ]);

    const preview = await c.send('POST', '/api/imports/preview?source=bitly', { payload: file, type: 'text/csv' });
    expect(preview.statusCode, preview.body).toBe(200);
    const rows = preview.json<{ rows: { line: number; createdAt?: string; warnings?: { field: string; reason: string }[] }[] }>().rows;
    expect(rows.map((r) => [r.line, r.createdAt, r.warnings?.map((w) => `${w.field} ${w.reason}`)])).toEqual([
      [2, '2020-10-26T17:20:40.000Z', undefined],
      [3, undefined, ['createdAt import_date_range']],
      [4, undefined, ['createdAt import_date_range']],
      [5, '2000-01-01T00:00:00.000Z', undefined],
    ]);

    const before = Date.now();
    const job = await c.run('source=bitly&collection=Dated', file);
    expect(job).toMatchObject({ status: 'done', total: 4, created: 4, failed: 0 });
    const links = new Map((await c.send('GET', '/api/links?take=100')).json<Link[]>().map((l) => [l.url, l.createdAt]));
    expect(links.get('https://example.com/a')).toBe('2020-10-26T17:20:40.000Z');
    expect(links.get('https://example.com/d')).toBe('2000-01-01T00:00:00.000Z');
    for (const url of ['https://example.com/b', 'https://example.com/c']) {
      expect(Date.parse(links.get(url)!), url).toBeGreaterThanOrEqual(before - 60_000);
    }
    const errors = parse(await c.errors(job.id), { relax_column_count: true }) as string[][];
    expect(errors.slice(1).map((r) => r.slice(0, 3))).toEqual([
      ['3', 'createdAt', 'import_date_range'],
      ['4', 'createdAt', 'import_date_range'],
    ]);
    expect(errors[1]![3]).toContain("the import's time");
  });
});
