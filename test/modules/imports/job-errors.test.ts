/**
 * Bad input to POST /api/imports (issue 25): file-level problems are a 400 before anything is
 * stored (or 413 above 50 MB), scopes are checked before the job starts, one job at a time, and
 * a bad row fails alone with its reason while the good rows around it are written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { within } from '../../helpers/wait.js';
import { freshHost } from '../domains/helpers.js';
import { importClient } from './job-helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

type ErrorAnswer = { error: { en: string; ar: string; code: string }; field?: string; missingScopes?: string[] };

function expectError(res: { statusCode: number; body: string; json: <T>() => T }, status: number, code: string): ErrorAnswer {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json<ErrorAnswer>();
  expect(body.error.code).toBe(code);
  expect(body.error.en.length).toBeGreaterThan(10);
  expect(body.error.ar).toMatch(/[\u0600-\u06FF]/);
  return body;
}

describe('file-level problems: a 400 and nothing stored', () => {
  it.each([
    ['JSON', '[{"url":"https://example.com"}]', 'import_not_csv'],
    ['binary', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x01]), 'import_not_csv'],
    ['UTF-16', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('url\n', 'utf16le')]), 'import_not_csv'],
    ['a BOM only', Buffer.from([0xef, 0xbb, 0xbf]), 'import_empty'],
    ['no destination column', 'name,title\r\nx,y\r\n', 'import_no_destination'],
  ])('%s', async (_what, body, code) => {
    const ws = await t.workspace();
    const c = importClient(t, ws);
    expectError(await c.post('collection=Any', body), 400, code);
    expect((await c.send('GET', '/api/imports')).json()).toEqual([]);
  });

  it('100,001 rows', async () => {
    const c = importClient(t, await t.workspace());
    const file = `url\n${'https://example.com/x\n'.repeat(100_001)}`;
    expectError(await c.post('collection=Any', file), 400, 'import_too_many_rows');
  });

  it('a 60 MB body is 413 before it is read', async () => {
    const c = importClient(t, await t.workspace());
    expectError(await c.post('collection=Any', Buffer.alloc(60 * 1024 * 1024, 0x61)), 413, 'body_too_large');
  });

  it('a row of more than 1,000 cells: the import and its preview are 400 naming the row', async () => {
    const c = importClient(t, await t.workspace());
    const file = `url\nhttps://example.com/a\nhttps://example.com/b${','.repeat(1000)}\n`;
    for (const res of [await c.post('collection=Any', file), await c.send('POST', '/api/imports/preview', { payload: file, type: 'text/csv' })]) {
      const body = expectError(res, 400, 'import_too_many_cells');
      expect(body.error.en).toMatch(/^Row 3 of the file holds more than 1000 cells/);
    }
    expect((await c.send('GET', '/api/imports')).json()).toEqual([]);
  });

  it('no collection column and no collection parameter', async () => {
    const c = importClient(t, await t.workspace());
    expect(expectError(await c.post('', 'url\nhttps://example.com/a\n'), 400, 'import_collection_required').field).toBe('collection');
  });

  it('a mapping that is not a JSON object, or names an unknown field or column', async () => {
    const c = importClient(t, await t.workspace());
    const file = 'Long URL,Name\nhttps://example.com/a,A\n';
    expectError(await c.post(`collection=A&mapping=${encodeURIComponent('[1]')}`, file), 400, 'import_mapping_invalid');
    expectError(await c.post(`collection=A&mapping=${encodeURIComponent('{"colour":"Name"}')}`, file), 400, 'import_unknown_field');
    expectError(await c.post(`collection=A&mapping=${encodeURIComponent('{"title":"Nom"}')}`, file), 400, 'import_unknown_column');
    const ok = await c.post(`collection=A&mapping=${encodeURIComponent('{"url":"Long URL","title":"Name"}')}`, file);
    expect(ok.statusCode, ok.body).toBe(202);
    expect(await c.finished(ok.json<{ id: string }>().id)).toMatchObject({ created: 1 });
    expect((await c.links())[0]).toMatchObject({ url: 'https://example.com/a', title: 'A' });
  });
});

describe('scopes', () => {
  it('a file naming a collection or tag that does not exist needs its write scope: 403 before the job starts', async () => {
    const ws = await t.workspace();
    const c = importClient(t, ws);
    const { key } = await ws.newKey(['linksWrite', 'linksRead', 'collectionsRead', 'tagsRead']);
    const file = 'url,collection,tags\nhttps://example.com/a,Spring,sale\n';
    const refused = expectError(await c.post('', file, key), 403, 'missing_scopes');
    expect(refused.missingScopes).toEqual(['collectionsWrite', 'tagsWrite']);
    expect((await c.send('GET', '/api/imports')).json()).toEqual([]);
    // Once they exist, linksWrite is enough.
    await c.send('POST', '/api/collections', { payload: [{ name: 'spring' }], type: 'application/json' });
    await c.send('POST', '/api/tags', { payload: [{ name: 'SALE' }], type: 'application/json' });
    const ok = await c.post('', file, key);
    expect(ok.statusCode, ok.body).toBe(202);
    expect(await c.finished(ok.json<{ id: string }>().id)).toMatchObject({ created: 1, failed: 0 });
    expect([...(await c.named('/api/collections')).keys()]).toEqual(['spring']);
    expect([...(await c.named('/api/tags')).keys()]).toEqual(['SALE']);
  });
});

describe('one import at a time per workspace', () => {
  it('a second file while the first runs is 409 naming the running one', async () => {
    const ws = await t.workspace();
    const c = importClient(t, ws);
    const big = `url,title\n${Array.from({ length: 3000 }, (_, i) => `https://example.com/${i},T${i}`).join('\n')}\n`;
    const first = await c.post('collection=A', big);
    expect(first.statusCode, first.body).toBe(202);
    const id = first.json<{ id: string }>().id;
    const second = expectError(await c.post('collection=A', 'url\nhttps://example.com/b\n'), 409, 'import_running');
    expect(second.error.en).toContain(id);
    // Refused before the file is read: a body that is no CSV at all (a 400 on its own) gets the same answer.
    expectError(await c.post('collection=A', '[{"url":"https://example.com"}]'), 409, 'import_running');
    expect(expectError(await c.post('collection=A', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00])), 409, 'import_running').error.en).toContain(id);
    expect(await c.finished(id)).toMatchObject({ status: 'done', total: 3000, created: 3000 });
    expect((await c.post('collection=A', 'url\nhttps://example.com/b\n')).statusCode).toBe(202);
  });
});

describe('files read at once per workspace', () => {
  it("beyond 2 previews in flight one workspace is 429 with Retry-After, while another workspace's preview is answered", async () => {
    const a = importClient(t, await t.workspace());
    const b = importClient(t, await t.workspace());
    const preview = (c: typeof a, file: string) => c.send('POST', '/api/imports/preview', { payload: file, type: 'text/csv' });
    const small = 'url,title\nhttps://example.com/small,Small\n';
    // A preview reads only the head of a file as rows (issue 43), but a file with more line breaks
    // than 100,001 is parsed through to count its records: with a line break in every title, 60,000
    // rows are read for seconds (in slices, the event loop free between them).
    const large = `url,title,description\n${Array.from({ length: 60_000 }, (_, i) => `https://example.com/${i},"Title ${i}\nsecond line",${'d'.repeat(200)}`).join('\n')}\n`;
    let largeAnswered = 0;
    let reads: Promise<LightMyRequestResponse>[] = [];
    let refused: LightMyRequestResponse | undefined;
    // A small preview holds a place while it is read: when it does so just as the second large one
    // arrives, that one is refused and both places are never held by the large ones. Such a try
    // ends when a large one is answered, and the two are sent again.
    for (let attempt = 0; attempt < 5 && !refused; attempt++) {
      largeAnswered = 0;
      reads = [preview(a, large), preview(a, large)].map((p) => p.finally(() => largeAnswered++));
      await within(
        30_000,
        async () => {
          const res = await preview(a, small);
          if (res.statusCode === 429) refused = res;
          else expect(res.statusCode, res.body).toBe(200);
          return refused !== undefined || largeAnswered > 0;
        },
        10,
      );
      if (!refused) await Promise.all(reads);
    }
    expect(refused, 'no third preview of the workspace was refused').toBeDefined();
    expect(largeAnswered).toBe(0);
    const body = expectError(refused!, 429, 'import_reads_busy');
    expect(refused!.headers['retry-after']).toBe(String((body as { retryAfter?: number }).retryAfter));
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThan(0);
    // An import of that workspace needs a place too.
    expectError(await a.post('collection=A', small), 429, 'import_reads_busy');

    // Another workspace is answered while the first one's reads are still in flight.
    const other = await preview(b, small);
    expect(other.statusCode, other.body).toBe(200);
    expect(largeAnswered).toBe(0);

    for (const res of await Promise.all(reads)) {
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json<{ total: number; totalEstimated: boolean }>()).toMatchObject({ total: 60_000, totalEstimated: true });
    }
    // The places are free again.
    expect((await preview(a, small)).statusCode).toBe(200);
  });
});

describe('bad rows fail alone', () => {
  it('a 1 MB cell, an http URL, an unknown collection id, a host another workspace holds: each row reported, the rest written', async () => {
    const taken = freshHost('taken');
    const other = await t.workspace();
    const claimed = importClient(t, other);
    const claim = await claimed.send('POST', '/api/domains', { payload: { host: taken }, type: 'application/json' });
    expect((await t.admin('POST', `/domains/${claim.json<{ id: string }>().id}/verify`)).statusCode).toBe(200);

    const c = importClient(t, await t.workspace());
    const mine = freshHost('mine');
    const rows = [
      'url,title,collection,short_url',
      `https://example.com/1,One,Main,https://${mine}/one`,
      `https://example.com/2,${'x'.repeat(1024 * 1024 + 1)},Main,`,
      'http://example.com/3,Three,Main,',
      'https://example.com/4,Four,00000000-0000-4000-8000-000000000000,',
      `https://example.com/5,Five,Main,https://${taken}/five`,
      `https://example.com/6,=1+2,Main,https://${mine}/six`,
    ];
    const job = await c.run('', `${rows.join('\r\n')}\r\n`);
    expect(job).toMatchObject({ status: 'done', total: 6, created: 2, failed: 4 });
    const errors = parse(await c.errors(job.id), { relax_column_count: true }) as string[][];
    expect(errors.slice(1).map((r) => r.slice(0, 3))).toEqual([
      ['3', 'title', 'cell_too_big'],
      ['4', 'url', 'http_not_upgraded'],
      ['5', 'collection', 'collection_unknown'],
      ['6', 'shortUrl', 'alias_host_taken'],
    ]);
    expect(errors[3]![3]).toContain('00000000-0000-4000-8000-000000000000');
    expect(errors[4]![3]).toContain(taken);
    // A row too large to give back comes without its cells.
    expect(errors[1]!.length).toBe(4);
    const links = await c.links();
    expect(links.map((l) => [l.title, l.aliases])).toEqual([
      ['One', [`https://${mine}/one`]],
      ['=1+2', [`https://${mine}/six`]],
    ]);
  });

  it('formula-looking cells come back guarded in the errors CSV', async () => {
    const c = importClient(t, await t.workspace());
    const job = await c.run('collection=A', 'url,title\r\nhttp://example.com/a,=HYPERLINK("https://evil.example")\r\n');
    const csv = await c.errors(job.id);
    expect(csv).toContain(`"'=HYPERLINK(""https://evil.example"")"`);
    expect(csv).not.toMatch(/,=HYPERLINK/);
  });
});
