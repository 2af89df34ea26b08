/**
 * What the Import page reads of a file in the browser (web/src/pages/imports): the head sent
 * for a preview asked again, cut only between records, and the header's column names when the
 * server refused the file as guessed.
 */
import { describe, expect, it } from 'vitest';
import { fileHead, HEAD_BYTES } from '../../web/src/pages/imports/file-head.js';
import { headerColumns } from '../../web/src/pages/imports/header.js';

const text = async (blob: Blob) => new TextDecoder().decode(await blob.arrayBuffer());

describe('fileHead', () => {
  it('sends a small file whole', async () => {
    const file = new Blob(['url\nhttps://example.com/a\n']);
    expect(await fileHead(file)).toBe(file);
  });

  it('cuts a large file after a line break outside quotes, past HEAD_BYTES', async () => {
    // Every record holds a quoted cell with a line break and a doubled quote: a cut inside one would split a record.
    const record = (i: number) => `https://example.com/${i},"Title ${i}, ""quoted""\nsecond line ${'x'.repeat(i % 50)}",عربي\n`;
    const records = Array.from({ length: 30_000 }, (_, i) => record(i));
    const file = new Blob(['url,title,tag\n', ...records]);
    expect(file.size).toBeGreaterThan(2 * HEAD_BYTES);
    const head = await text(await fileHead(file));
    expect(head.length).toBeGreaterThanOrEqual(HEAD_BYTES / 2);
    expect(new TextEncoder().encode(head).length).toBeGreaterThanOrEqual(HEAD_BYTES);
    // The head is the header and whole records, in order.
    expect(head.startsWith('url,title,tag\n')).toBe(true);
    const body = head.slice('url,title,tag\n'.length);
    const whole = body.split(/(?=https:\/\/example\.com\/\d+,)/);
    expect(whole.map((r, i) => r === record(i))).not.toContain(false);
  });

  it('sends the whole file when no break outside quotes comes soon', async () => {
    const file = new Blob(['url,title\nhttps://example.com/,"', 'a\n'.repeat(2 * HEAD_BYTES), '"\n']);
    expect(await fileHead(file)).toBe(file);
  });
});

describe('headerColumns', () => {
  it.each([
    ['\uFEFFurl,title,tags\r\nhttps://a,b,c', ['url', 'title', 'tags']],
    ['Target page;Name;"Group; team"\n', ['Target page', 'Name', 'Group; team']],
    ['a\tb\tc', ['a', 'b', 'c']],
    ['"say ""hi""",  spaced  ,"multi\nline"\nrow', ['say "hi"', 'spaced', 'multi\nline']],
  ])('%j → %j', (input, columns) => {
    expect(headerColumns(input)).toEqual(columns);
  });
});
