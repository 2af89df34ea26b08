/**
 * An import shows progress from the first byte read (issue 43): GET /api/imports/{id} gives the
 * file's size and how far into it the rows written reach, and the first batch is small, so a
 * 20,000-row file moves within about a second of its 202 rather than after a full batch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { within } from '../../helpers/wait.js';
import { importClient, type ImportRecord } from './job-helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

type WithBytes = ImportRecord & { bytesRead: number; bytesTotal: number };

describe('progress in bytes', () => {
  it('a 20,000-row file: bytesTotal from the 202, bytesRead moving with the first 50 rows, bytesTotal once done', async () => {
    const c = importClient(t, await t.workspace());
    const lines = ['\uFEFFurl,title,created_at'];
    for (let i = 0; i < 20_000; i++) lines.push(`https://example.com/p/${i},"Row ${i}",2024-03-01T09:15:00Z`);
    const file = Buffer.from(`${lines.join('\n')}\n`);
    const res = await c.post('collection=Progress', file);
    expect(res.statusCode, res.body).toBe(202);
    const started = res.json<WithBytes>();
    expect(started).toMatchObject({ status: 'running', done: 0, bytesRead: 0, bytesTotal: file.length });
    const at202 = performance.now();

    let first: WithBytes | undefined;
    const moved = await within(
      60_000,
      async () => {
        const job = (await c.send('GET', `/api/imports/${started.id}`)).json<WithBytes>();
        if (job.bytesRead > 0) first = job;
        return first !== undefined;
      },
      20,
    );
    expect(moved).toBe(true);
    const ms = Math.round(performance.now() - at202);
    console.log(`first progress ${ms} ms after the 202: done ${first!.done}, ${first!.bytesRead} of ${first!.bytesTotal} bytes`);
    if (first!.status === 'running') {
      // The first batch: 50 rows, their bytes (give or take the parser's 16 KB slice), not the file.
      expect(first!.done).toBe(50);
      expect(first!.bytesRead).toBeLessThan(file.length / 10);
    }
    const done = (await c.finished(started.id)) as WithBytes;
    expect(done).toMatchObject({ status: 'done', done: 20_000, created: 20_000, bytesRead: file.length, bytesTotal: file.length });
  });
});
