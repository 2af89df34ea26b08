/**
 * Bad input to POST /api/imports?source=linktrail over HTTP (issue 25, operations.md §13): a bad
 * line is a rejected row with its line number and reason, the good ones are written; a file that
 * is no export at all is a 400 before the job; the write scopes of the file's record types are
 * needed (403 missingScopes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { errorsOf, exportOf, importInto, postImport } from './linktrail-helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

/** Ids of this test's records (fresh per run: the PostgreSQL test database is shared). */
const id = () => crypto.randomUUID();

describe('a linktrail file with bad lines', () => {
  it('rejects each bad line with its number and reason, and writes the others', async () => {
    const ws = await t.workspace();
    const [col, tag, ok, dup, click, nowhere] = [id(), id(), id(), id(), id(), id()];
    const link = (extra: object) => JSON.stringify({ type: 'link', id: id(), url: 'https://ok.example/', collectionId: col, ...extra });
    const at = '2024-03-01T10:00:00.000Z';
    const lines = [
      JSON.stringify({ type: 'collection', id: col, name: 'Imported', createdAt: at }),
      'this is not json',
      '[1, 2]',
      JSON.stringify({ type: 'widget', id: id() }),
      '',
      JSON.stringify({ type: 'tag', id: tag, name: '' }),
      link({ url: 'http://insecure.example/' }),
      link({ collectionId: nowhere }),
      link({ tagIds: [tag] }),
      JSON.stringify({ type: 'link', id: ok, url: 'https://ok.example/4', collectionId: col, title: 'Four' }),
      JSON.stringify({ type: 'link', id: ok, url: 'https://ok.example/4', collectionId: col }),
      JSON.stringify({ type: 'click', id: click, linkId: ok, createdAt: at, device: 'desktop', referrer: '(direct)' }),
      JSON.stringify({ type: 'click', id: id(), linkId: dup, createdAt: at, device: 'desktop', referrer: '(direct)' }),
      JSON.stringify({
        type: 'lead',
        id: id(),
        eventName: 'Sign\u0000up',
        linkId: ok,
        clickId: click,
        customerId: id(),
        customerExternalId: 'u',
        createdAt: at,
      }),
      JSON.stringify({
        type: 'sale',
        id: id(),
        eventName: 'Buy',
        linkId: ok,
        clickId: click,
        customerId: id(),
        customerExternalId: 'u',
        createdAt: at,
        amount: 5,
        currency: 'xyz',
      }),
      JSON.stringify({ type: 'collection', id: 'not-a-uuid', name: 'x' }),
      JSON.stringify({ type: 'link', id: id(), url: 'https://ok.example/', collectionId: col, title: 'x'.repeat(2_200_000) }),
    ];
    const job = await importInto(t, ws, lines.join('\r\n'));
    expect(job).toMatchObject({ status: 'done', total: 16, done: 16, created: 3, updated: 0, unchanged: 0, failed: 13, error: null });
    const errors = parse(await errorsOf(t, ws, job.id)) as string[][];
    expect(errors[0]).toEqual(['line', 'field', 'reason', 'error']);
    expect(errors.slice(1).map((r) => r.slice(0, 3))).toEqual([
      ['2', 'row', 'not_json_object'],
      ['3', 'row', 'not_json_object'],
      ['4', 'type', 'unknown_record_type'],
      ['6', 'name', 'min_length'],
      ['7', 'url', 'https_required'],
      ['8', 'collectionId', 'reference_missing'],
      ['9', 'tagIds[0]', 'reference_missing'],
      ['11', 'id', 'duplicate_record_in_file'],
      ['13', 'linkId', 'reference_missing'],
      ['14', 'eventName', 'invalid_characters'],
      ['15', 'currency', 'currency_code'],
      ['16', 'id', 'format'],
      ['17', 'row', 'row_too_big'],
    ]);
    expect(errors[6]![3]).toContain(`names the collection ${nowhere}`);
    const records = await exportOf(t, ws.key);
    expect(records.map((r) => `${r.type} ${r.id}`)).toEqual([`collection ${col}`, `link ${ok}`, `click ${click}`]);
    expect(records[0]!.createdAt).toBe(at);
  });
});

describe('a file that is not a linktrail export', () => {
  it('is a 400 before any job, naming what is wrong', async () => {
    const ws = await t.workspace();
    const cases: [string | Buffer, string][] = [
      ['url,title\nhttps://a.example,A\n', 'its first line is not a JSON object'],
      ['\n \n\t\n', 'it holds no record'],
      [Buffer.from([0x7b, 0x00, 0x7d]), 'binary data'],
      [Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 'not valid UTF-8'],
    ];
    for (const [file, detail] of cases) {
      const res = await postImport(t, ws.key, 'source=linktrail', file);
      expect(res.statusCode, res.body).toBe(400);
      const body = res.json<{ error: { code: string; en: string; ar: string } }>();
      expect(body.error.code).toBe('import_not_ndjson');
      expect(body.error.en).toContain(detail);
      expect(body.error.ar).toMatch(/[\u0600-\u06FF]/);
    }
    expect((await t.inject({ method: 'GET', url: '/api/imports', headers: { authorization: `Bearer ${ws.key}` } })).json()).toEqual([]);
  });

  it('is read as linktrail when no source is given and its first line is a JSON object', async () => {
    const ws = await t.workspace();
    const job = await importInto(t, ws, `\uFEFF${JSON.stringify({ type: 'collection', id: id(), name: 'Found' })}\n`, '');
    expect(job).toMatchObject({ status: 'done', source: 'linktrail', created: 1 });
  });

  it('a CSV source still refuses JSON, pointing at source=linktrail', async () => {
    const ws = await t.workspace();
    const res = await postImport(t, ws.key, 'source=csv&collection=x', JSON.stringify({ type: 'collection', id: id(), name: 'x' }));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<{ error: { en: string } }>().error.en).toContain('source=linktrail');
  });
});

describe('scopes', () => {
  it('needs the write scope of each record type the file holds: 403 naming the missing ones, before the job', async () => {
    const ws = await t.workspace();
    const { key } = await ws.newKey(['linksWrite', 'linksRead', 'tagsWrite']);
    const file = [
      { type: 'collection', id: id(), name: 'c' },
      { type: 'tag', id: id(), name: 't' },
      { type: 'customer', id: id(), externalId: 'u', name: 'U' },
      { type: 'click', id: id(), linkId: id(), createdAt: '2024-01-01T00:00:00Z', device: 'desktop', referrer: '(direct)' },
      { type: 'sale', id: id() },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n');
    const res = await postImport(t, key, 'source=linktrail', file);
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json()).toMatchObject({ error: { code: 'missing_scopes' }, missingScopes: ['collectionsWrite', 'customersWrite', 'conversionsWrite'] });
  });
});
