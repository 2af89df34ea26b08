/**
 * POST /api/imports/preview reads only what it shows (issue 43): a big file's head as rows, its
 * row count estimated from its line breaks, the file-level checks still over the whole file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimatedRowsForTest, PREVIEW_HEAD_BYTES, previewHead } from '../../../src/modules/imports/service.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { importClient } from './job-helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

/** A Bitly export of `n` rows (14 MB at 100,000), the row after `badAt` broken (an http destination). */
function bitly(n: number, badAt = -1): string {
  const lines = ['id,link,custom_bitlinks,long_url,title,archived,created_at,tags'];
  for (let i = 0; i < n; i++) {
    const url = i === badAt ? 'http://example.com/old' : `https://example.com/page/${i}?ref=campaign`;
    lines.push(`bit.ly/r${i},https://bit.ly/r${i},,${url},"Row ${i}, a title",false,2024-03-01T09:15:00+0000,"a,b"`);
  }
  return `${lines.join('\r\n')}\r\n`;
}

interface Preview {
  total: number;
  totalEstimated: boolean;
  rows: { line: number; ok: boolean }[];
  columns: string[];
  publicShorteners: { host: string; rows: number }[];
}

describe('the preview of a big file', () => {
  it('answers from the head: 10 rows, the row count estimated (here exact: one row a line)', async () => {
    const c = importClient(t, await t.workspace());
    const file = bitly(100_000, 90_000);
    const started = performance.now();
    const res = await c.send('POST', '/api/imports/preview?source=bitly', { payload: file, type: 'text/csv' });
    const ms = Math.round(performance.now() - started);
    console.log(`preview of 100,000 rows (${(file.length / 1e6).toFixed(1)} MB): ${ms} ms`);
    expect(res.statusCode, res.body).toBe(200);
    const preview = res.json<Preview>();
    expect(preview).toMatchObject({ total: 100_000, totalEstimated: true });
    expect(preview.rows.map((r) => r.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    // The hosts counted are those of the rows read: the head's, not the whole file's.
    expect(preview.publicShorteners).toHaveLength(1);
    expect(preview.publicShorteners[0]!.rows).toBeLessThan(10_000);
    expect(ms).toBeLessThan(5_000);
  });

  it('a small file is read whole and counted exactly', async () => {
    const c = importClient(t, await t.workspace());
    const res = await c.send('POST', '/api/imports/preview?source=bitly', { payload: bitly(25), type: 'text/csv' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<Preview>()).toMatchObject({ total: 25, totalEstimated: false });
  });

  it('still refuses the whole file: more than 100,000 rows, bytes that are not UTF-8 after the head', async () => {
    const c = importClient(t, await t.workspace());
    const tooMany = await c.send('POST', '/api/imports/preview?source=bitly', { payload: bitly(100_001), type: 'text/csv' });
    expect(tooMany.statusCode, tooMany.body).toBe(400);
    expect(tooMany.json<{ error: { code: string } }>().error.code).toBe('import_too_many_rows');
    const latin1 = Buffer.concat([Buffer.from(bitly(20_000)), Buffer.from([0xe9, 0x0a])]);
    const notUtf8 = await c.send('POST', '/api/imports/preview?source=bitly', { payload: latin1, type: 'text/csv' });
    expect(notUtf8.statusCode, notUtf8.body).toBe(400);
    expect(notUtf8.json<{ error: { code: string } }>().error.code).toBe('import_not_csv');
  });
});

describe('previewHead and the estimate', () => {
  it('cuts after a record outside quotes, past PREVIEW_HEAD_BYTES; a small file whole', () => {
    const small = Buffer.from('url\nhttps://example.com/a\n');
    expect(previewHead(small)).toBe(small);
    const record = (i: number) => `https://example.com/${i},"Title ${i}, ""quoted""\nsecond line ${'x'.repeat(i % 50)}"\n`;
    const file = Buffer.from(`url,title\n${Array.from({ length: 20_000 }, (_, i) => record(i)).join('')}`);
    const head = previewHead(file);
    expect(head.length).toBeGreaterThanOrEqual(PREVIEW_HEAD_BYTES);
    expect(head.length).toBeLessThan(file.length);
    expect(head.toString().endsWith('"\n')).toBe(true);
    // Two line breaks a record: the estimate scales the head's rows by the file's line breaks.
    const headRows = (head.toString().match(/[^"]"\n/g) ?? []).length;
    expect(estimatedRowsForTest(file, head.length, headRows)).toBe(20_000);
  });
});
