/**
 * Bad input, each with its clear error: problems of the whole file throw a coded AppError before
 * any row is read (the route answers 400 with en/ar text); problems of one row fail that row with
 * its field, a reason code and en/ar text, and the rows after it are still read.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { errorBody } from '../../../src/http/errors.js';
import { MAX_ROW_CELLS } from '../../../src/modules/imports/csv-records.js';
import { headerOf, readImport } from '../../../src/modules/imports/read-csv.js';
import { failed, readAll } from './read.js';

function fileError(file: Buffer | string, o: Parameters<typeof readImport>[1] = { source: 'csv' }): AppError {
  try {
    readImport(typeof file === 'string' ? Buffer.from(file) : file, o);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('no error');
}

describe('a file that cannot be imported', () => {
  it.each([
    ['empty', '', 'import_empty'],
    ['BOM only', '\uFEFF', 'import_empty'],
    ['blank lines', '\uFEFF\r\n\r\n  \r\n', 'import_empty'],
    ['UTF-16', Buffer.from('\uFEFFurl\r\nhttps://a.example\r\n', 'utf16le'), 'import_not_csv'],
    ['binary', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00]), 'import_not_csv'],
    ['not UTF-8', Buffer.from([0x75, 0x72, 0x6c, 0x0a, 0xff, 0xfe, 0x41]), 'import_not_csv'],
    ['JSON', '{"type":"link","url":"https://a.example"}\n', 'import_not_csv'],
    ['a first line with no destination', 'name,notes\r\nx,y\r\n', 'import_no_destination'],
  ])('%s: %s', (_name, file, code) => {
    const err = fileError(file);
    expect(err.code).toBe(code);
    const body = errorBody(err);
    expect(body.error.code).toBe(code);
    expect(body.error.en).not.toMatch(/\{\w+\}/);
    expect(body.error.ar).toMatch(/[\u0600-\u06FF]/);
    expect(body.error.ar).not.toMatch(/\{\w+\}/);
  });

  it('names the columns it found and the ones it looks for', () => {
    expect(errorBody(fileError('name,notes\r\n', { source: 'dub' })).error.en).toBe(
      'The file has no destination column for source dub: name one "destination_url", or map yours with mapping={"url":"<column>"}. Columns found: name, notes.',
    );
  });

  it('over 50 MB', () => {
    expect(fileError(Buffer.alloc(50 * 1024 * 1024 + 1, 0x61)).code).toBe('import_too_large');
  });

  it('a mapping naming a column the file lacks, or a field the import does not read', () => {
    const unknownColumn = fileError('url,title\r\n', { source: 'csv', mapping: { title: 'Name' } });
    expect(unknownColumn.code).toBe('import_unknown_column');
    expect(errorBody(unknownColumn).field).toBe('mapping.title');
    const unknownField = fileError('url,title\r\n', { source: 'csv', mapping: { colour: 'title' } });
    expect(unknownField.code).toBe('import_unknown_field');
    expect(errorBody(unknownField).field).toBe('mapping.colour');
  });

  it('more than 100,000 rows: refused on the first batch, before any row', async () => {
    const file = Buffer.from(`url\n${'https://a.example/x\n'.repeat(100_001)}`);
    const iterator = readImport(file, { source: 'csv' })[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toMatchObject({ code: 'import_too_many_rows' });
  });

  it('100,000 rows exactly, some with line breaks in quotes, are read', async () => {
    const file = Buffer.from(`url,title\n${'https://a.example/x,"two\nlines"\n'.repeat(100_000)}`);
    let rows = 0;
    for await (const batch of readImport(file, { source: 'csv' })) rows += batch.length;
    expect(rows).toBe(100_000);
  });

  it('a row of more than 1,000 cells: refused naming the row, a row of 1,000 read', async () => {
    const row = (cells: number) => `https://a.example/${cells}${','.repeat(cells - 1)}\n`;
    expect(await readAll(`url,title\n${row(1000)}`, { source: 'csv' })).toEqual([
      { ok: true, row: { line: 2, url: 'https://a.example/1000', tags: [], utm: {} } },
    ]);
    const refused = readAll(`url,title\n${row(2)}\n${row(1001)}${row(2)}`, { source: 'csv' });
    const err = await refused.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    const body = errorBody(err as AppError);
    expect(body).toMatchObject({ error: { code: 'import_too_many_cells' } });
    // Line 4: the header, a row, a blank line, then the long row.
    expect(body.error.en).toMatch(/^Row 4 of the file holds more than 1000 cells/);
    expect(body.error.ar).toContain('الصف 4');
    expect(MAX_ROW_CELLS).toBe(1000);
  });

  it('headerOf gives the delimiter and the trimmed columns for a preview', () => {
    expect(headerOf(Buffer.from('\uFEFF"long url"\t Title \ttags\r\nx\ty\tz\r\n'))).toEqual({ delimiter: '\t', columns: ['long url', 'Title', 'tags'] });
  });
});

describe('a row that cannot be imported', () => {
  it('missing, invalid, non-https and http destinations', async () => {
    const file = 'url,title\n,no url\nnot a url,x\nftp://a.example/f,x\nhttp://a.example/h,x\n" https://a.example/ok ",x\n';
    expect(await readAll(file, { source: 'csv' })).toEqual([
      failed(2, 'url', 'required'),
      failed(3, 'url', 'https_required'),
      failed(4, 'url', 'https_required'),
      failed(5, 'url', 'http_not_upgraded'),
      { ok: true, row: { line: 6, url: 'https://a.example/ok', title: 'x', tags: [], utm: {} } },
    ]);
  });

  it('says how to import an http destination, in English and Arabic', async () => {
    const [result] = await readAll('url\nhttp://a.example\n', { source: 'csv' });
    expect(result).toEqual({
      ok: false,
      line: 2,
      field: 'url',
      reason: 'http_not_upgraded',
      message: {
        en: 'Invalid url: is an http URL: import with upgradeHttp=true to make it https, or correct it in the file.',
        ar: 'قيمة غير صالحة في url: رابط http: استورد مع upgradeHttp=true لتحويله إلى https، أو صحّحه في الملف.',
      },
    });
  });

  it('a cell over 1 MB, and a row over 2 MB, fail; the next row is read', async () => {
    const big = 'x'.repeat(1024 * 1024 + 1);
    const near = 'y'.repeat(1024 * 1024 - 10);
    const file = `url,title,notes,more\nhttps://a.example,${big},,\nhttps://a.example,,${big},\nhttps://a.example,${near},${near},${near}\nhttps://a.example/next,,,\n`;
    expect(await readAll(file, { source: 'csv' })).toEqual([
      failed(2, 'title', 'cell_too_big'),
      failed(3, 'notes', 'cell_too_big'),
      failed(4, 'row', 'row_too_big'),
      { ok: true, row: { line: 5, url: 'https://a.example/next', tags: [], utm: {} } },
    ]);
  });

  it('an old short URL that is not a URL with a host and a path', async () => {
    const file =
      'url,short_url\nhttps://a.example,not a url\nhttps://a.example,https://sho.rt/\nhttps://a.example,mailto:x@sho.rt\nhttps://a.example,https://sho.rt:8443/Ok/?q=1#f\n';
    expect(await readAll(file, { source: 'csv' })).toEqual([
      failed(2, 'shortUrl', 'short_url'),
      failed(3, 'shortUrl', 'short_url'),
      failed(4, 'shortUrl', 'short_url'),
      { ok: true, row: { line: 5, url: 'https://a.example/', tags: [], utm: {}, shortUrl: 'https://sho.rt/Ok' } },
    ]);
  });

  it('a duplicate old short URL names the first line; a failed first row does not count', async () => {
    const file =
      'url,short_url\nnope,https://sho.rt/a\nhttps://a.example/1,https://SHO.RT./a/\nhttps://a.example/2,sho.rt/a\nhttps://a.example/3,https://sho.rt/A\n';
    expect(await readAll(file, { source: 'csv' })).toEqual([
      failed(2, 'url', 'https_required'),
      { ok: true, row: { line: 3, url: 'https://a.example/1', tags: [], utm: {}, shortUrl: 'https://sho.rt/a' } },
      failed(4, 'shortUrl', 'duplicate_in_file'),
      { ok: true, row: { line: 5, url: 'https://a.example/3', tags: [], utm: {}, shortUrl: 'https://sho.rt/A' } },
    ]);
  });

  it('a creation date that is no date', async () => {
    expect(await readAll('url,created_at\nhttps://a.example,yesterday\nhttps://a.example,2024-02-30\n', { source: 'csv' })).toEqual([
      failed(2, 'createdAt', 'import_date'),
      failed(3, 'createdAt', 'import_date'),
    ]);
  });

  it('a quote never closed fails its row; the rows before it are kept', async () => {
    expect(await readAll('url,title\nhttps://a.example/1,ok\nhttps://a.example/2,"open\nhttps://a.example/3,x\n', { source: 'csv' })).toEqual([
      { ok: true, row: { line: 2, url: 'https://a.example/1', title: 'ok', tags: [], utm: {} } },
      failed(3, 'row', 'unclosed_quote'),
    ]);
  });

  it('stray quotes inside a cell are text', async () => {
    expect(await readAll('url,title\nhttps://a.example,He said "hi" twice\n', { source: 'csv' })).toEqual([
      { ok: true, row: { line: 2, url: 'https://a.example/', title: 'He said "hi" twice', tags: [], utm: {} } },
    ]);
  });
});
