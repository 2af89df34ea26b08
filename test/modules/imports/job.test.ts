/**
 * POST /api/imports over HTTP (issue 25, operations.md §13): a Bitly export imported end to end
 * (names not ids, aliases, rejected rows as CSV), the same file again changing nothing, a changed
 * row updated, old short URLs answering once their host is verified.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { freshHost } from '../domains/helpers.js';
import { fixtureWithFreshHosts, importClient } from './job-helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

describe('importing a Bitly export', () => {
  it('creates each good row as a link with its names and alias, and lists each bad row with its reason and cells', async () => {
    const ws = await t.workspace();
    const c = importClient(t, ws);
    const { file, hosts } = fixtureWithFreshHosts('bitly.csv', ['brand.link', 'bit.ly']);
    const job = await c.run('source=bitly&collection=From%20Bitly', file);
    expect(job).toMatchObject({ status: 'done', source: 'bitly', total: 5, done: 5, created: 3, updated: 0, unchanged: 0, failed: 2, error: null });

    const collections = await c.named('/api/collections');
    expect([...collections.keys()]).toEqual(['From Bitly']);
    const tags = await c.named('/api/tags');
    expect([...tags.keys()].sort()).toEqual(['+new', '-draft', 'sale', 'spring', 'رمضان'].sort());

    const links = await c.links();
    // Listed oldest first: each link has its row's creation date (2024-01-02, 2024-03-01, 2024-03-10).
    expect(links.map((l) => l.createdAt)).toEqual(['2024-01-02T03:04:05.000Z', '2024-03-01T09:15:00.000Z', '2024-03-10T18:00:00.000Z']);
    expect(links.map((l) => ({ url: l.url, title: l.title, aliases: l.aliases, tags: l.tagIds.length, collection: l.collectionId }))).toEqual([
      {
        url: 'https://example.com/formula',
        title: '=HYPERLINK("https://evil.example")',
        aliases: [`https://${hosts['brand.link']}/spring`],
        tags: 2,
        collection: collections.get('From Bitly'),
      },
      {
        url: 'https://shop.example.com/spring?ref=a',
        title: 'Spring sale, 50% off',
        aliases: [`https://${hosts['brand.link']}/Spring`],
        tags: 2,
        collection: collections.get('From Bitly'),
      },
      {
        url: 'https://example.com/ar/%D8%B1%D9%85%D8%B6%D8%A7%D9%86',
        title: 'عرض رمضان 🌙\r\nالجزء الثاني',
        aliases: [`https://${hosts['bit.ly']}/4Abc`],
        tags: 1,
        collection: collections.get('From Bitly'),
      },
    ]);
    expect(links[1]!.tagIds).toEqual([tags.get('sale'), tags.get('spring')]);

    const errors = parse(await c.errors(job.id), { relax_column_count: true }) as string[][];
    expect(errors[0]).toEqual(['line', 'field', 'reason', 'error', 'id', 'link', 'custom_bitlinks', 'long_url', 'title', 'archived', 'created_at', 'tags']);
    expect(errors.slice(1).map((r) => r.slice(0, 3))).toEqual([
      ['4', 'url', 'http_not_upgraded'],
      ['6', 'shortUrl', 'duplicate_in_file'],
    ]);
    expect(errors[1]![3]).toContain('upgradeHttp=true');
    // The row as it was, to fix and send again.
    expect(errors[1]!.slice(4, 9)).toEqual([`${hosts['bit.ly']}/5Qq`, `https://${hosts['bit.ly']}/5Qq`, '', 'http://old.example.com/page', 'He said "hi"']);

    // Every host the file's old short URLs are on is claimed, pending, for the TXT record.
    const domains = (await c.send('GET', '/api/domains')).json<{ host: string; status: string }[]>();
    expect(domains.map((d) => `${d.host} ${d.status}`).sort()).toEqual([`${hosts['bit.ly']} pending`, `${hosts['brand.link']} pending`].sort());
  });

  it('the same file twice changes nothing; a row changed in the second file is updated', async () => {
    const ws = await t.workspace();
    const c = importClient(t, ws);
    const { file } = fixtureWithFreshHosts('bitly.csv', ['brand.link', 'bit.ly']);
    const first = await c.run('source=bitly&collection=From%20Bitly&upgradeHttp=true', file);
    expect(first).toMatchObject({ created: 4, updated: 0, unchanged: 0, failed: 1 });
    const before = await c.links();

    const again = await c.run('source=bitly&collection=From%20Bitly&upgradeHttp=true', file);
    expect(again).toMatchObject({ status: 'done', total: 5, created: 0, updated: 0, unchanged: 4, failed: 1 });
    expect(await c.links()).toEqual(before);

    const changed = Buffer.from(file.toString('utf8').replace('Spring sale, 50% off', 'Spring sale, 60% off'));
    const third = await c.run('source=bitly&collection=From%20Bitly&upgradeHttp=true', changed);
    expect(third).toMatchObject({ created: 0, updated: 1, unchanged: 3, failed: 1 });
    const after = await c.links();
    expect(after.map((l) => l.id)).toEqual(before.map((l) => l.id));
    const spring = (links: typeof after) => links.find((l) => l.url === 'https://shop.example.com/spring?ref=a')!;
    expect(spring(after).title).toBe('Spring sale, 60% off');
    expect(spring(after).shortUrl).toBe(spring(before).shortUrl);
  });

  it('an imported link answers on its old short URL once the host is verified, and on its short URL as before', async () => {
    const ws = await t.workspace();
    const c = importClient(t, ws);
    const { file, hosts } = fixtureWithFreshHosts('bitly.csv', ['brand.link', 'bit.ly']);
    await c.run('source=bitly&collection=Spring', file);
    const brand = hosts['brand.link']!;
    const aliasRequest = () => t.inject({ method: 'GET', url: '/Spring', headers: { host: brand } });
    // Pending: the host is not served as a claimed host yet.
    expect((await aliasRequest()).headers.location).toBeUndefined();
    const domain = (await c.send('GET', '/api/domains')).json<{ id: string; host: string }[]>().find((d) => d.host === brand)!;
    expect((await t.admin('POST', `/domains/${domain.id}/verify`)).statusCode).toBe(200);
    const viaAlias = await aliasRequest();
    expect(viaAlias.statusCode, viaAlias.body).toBe(302);
    // The link's own answer: destination and the click id of a recorded click.
    expect(viaAlias.headers.location).toMatch(/^https:\/\/shop\.example\.com\/spring\?ref=a&ltid=[0-9a-f-]{36}$/);
    const link = (await c.links()).find((l) => l.url === 'https://shop.example.com/spring?ref=a')!;
    const viaShort = await t.inject({ method: 'GET', url: new URL(link.shortUrl).pathname });
    expect(viaShort.statusCode).toBe(302);
    expect(viaShort.headers.location).toMatch(/^https:\/\/shop\.example\.com\/spring\?ref=a&ltid=/);
  });

  it('a YOURLS table (keywords without a host) with domain=: each keyword becomes an alias on that host, and re-importing changes nothing', async () => {
    const c = importClient(t, await t.workspace());
    const { file } = fixtureWithFreshHosts('yourls.csv', []);
    const host = freshHost('yourls');
    const query = `source=csv&collection=YOURLS&upgradeHttp=true&domain=${host}&mapping=${encodeURIComponent('{"createdAt":"timestamp"}')}`;
    expect(await c.run(query, file)).toMatchObject({ status: 'done', total: 3, created: 3, failed: 0 });
    // Oldest first, by the table's timestamps (2019, then 2024).
    expect((await c.links()).map((l) => l.aliases)).toEqual([[`https://${host}/old`], [`https://${host}/spring`], [`https://${host}/ar`]]);
    expect(await c.run(query, file)).toMatchObject({ created: 0, updated: 0, unchanged: 3 });
  });

  it("the dashboard's links export imports back into its workspace unchanged: its short URLs name the links, its ids name the collection and tags", async () => {
    const ws = await t.workspace();
    const c = importClient(t, ws);
    const json = (url: string, payload: unknown) => c.send('POST', url, { payload, type: 'application/json' });
    const [collection] = (await json('/api/collections', [{ name: 'Autumn' }])).json<{ id: string }[]>();
    const tags = (await json('/api/tags', [{ name: 'sale' }, { name: 'two words' }])).json<{ id: string }[]>();
    const made = await json('/api/links', [
      { url: 'https://example.com/a', title: 'A, with a comma', collectionId: collection!.id, tagIds: tags.map((x) => x.id) },
      { url: 'https://example.com/b', collectionId: collection!.id, tagIds: [tags[1]!.id] },
      { url: 'https://example.com/c', title: 'C', collectionId: collection!.id },
    ]);
    expect(made.statusCode, made.body).toBe(201);
    const before = await c.links();
    // The columns and cells web/src/pages/links/rows.ts writes (tag ids separated by spaces).
    const cell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
    const csv = [
      'id,shortUrl,url,title,collectionId,tagIds',
      ...before.map((l) => [l.id, l.shortUrl, l.url, l.title ?? '', l.collectionId, l.tagIds.join(' ')].map(cell).join(',')),
    ];
    const job = await c.run('', `\uFEFF${csv.join('\r\n')}\r\n`);
    expect(job).toMatchObject({ status: 'done', source: 'csv', total: 3, created: 0, updated: 0, unchanged: 3, failed: 0 });
    expect(await c.links()).toEqual(before);
    expect((await c.named('/api/tags')).size).toBe(2);
  });
});
