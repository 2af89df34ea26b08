/**
 * A linktrail import taken over by another instance (operations.md §13: any instance resumes
 * it): the first instance stops after some batches, a second one on the same database finishes
 * the job from where it stood, and every record is written once — clicks counted once in
 * analytics, the job's counters adding up to the file.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { within } from '../../helpers/wait.js';
import type { ImportRecord } from './job-helpers.js';
import { analyticsBy, exportOf, postImport } from './linktrail-helpers.js';

const CLICKS = 10_000;
const opened: TestApp[] = [];

afterAll(async () => {
  for (const t of opened) await t.close();
  await dropFreshDatabases();
});

/** A collection, a link, 10 customers, 10,000 clicks (20 batches) and 100 leads. */
function exportFile(): string {
  const at = (s: number) => new Date(Date.UTC(2025, 0, 1) + s * 1000).toISOString();
  const collection = randomUUID();
  const link = randomUUID();
  const customers = Array.from({ length: 10 }, () => randomUUID());
  const clicks = Array.from({ length: CLICKS }, () => randomUUID());
  const lines: object[] = [
    { type: 'collection', id: collection, name: 'C', createdAt: at(0) },
    { type: 'link', id: link, url: 'https://shop.example/resume', collectionId: collection, createdAt: at(0) },
    ...customers.map((id, i) => ({ type: 'customer', id, externalId: `u${i}`, name: `U${i}`, createdAt: at(0) })),
    ...clicks.map((id, i) => ({
      type: 'click',
      id,
      linkId: link,
      createdAt: at(i * 60),
      country: ['GB', 'FR'][i % 2],
      device: 'desktop',
      referrer: '(direct)',
    })),
    ...Array.from({ length: 100 }, (_, i) => ({
      type: 'lead',
      id: randomUUID(),
      eventName: 'Sign up',
      linkId: link,
      clickId: clicks[i * 7],
      customerId: customers[i % 10],
      customerExternalId: `u${i % 10}`,
      createdAt: at(i * 420 + 1),
    })),
  ];
  return lines.map((l) => JSON.stringify(l)).join('\n');
}

describe('a linktrail import whose instance stops', () => {
  it('is finished by another instance, each record written once', async () => {
    const database = await freshDatabase();
    const first = await startTestApp({ database });
    opened.push(first);
    const ws = await first.workspace();
    const file = exportFile();
    const started = await postImport(first, ws.key, 'source=linktrail', file);
    expect(started.statusCode, started.body).toBe(202);
    const id = started.json<ImportRecord>().id;
    const job = async (t: TestApp) => (await t.inject({ method: 'GET', url: `/api/imports/${id}`, headers: bearer(ws.key) })).json<ImportRecord>();
    expect(await within(60_000, async () => (await job(first)).done > 0, 10)).toBe(true);
    await first.close();
    opened.splice(opened.indexOf(first), 1);

    const second = await startTestApp({ database });
    opened.push(second);
    const stopped = await job(second);
    // Stopped mid-way: some batches written, the job still running, held by nobody.
    expect(stopped.status).toBe('running');
    expect(stopped.done).toBeGreaterThan(0);
    expect(stopped.done).toBeLessThan(stopped.total);
    let ended: ImportRecord | undefined;
    expect(await within(120_000, async () => (ended = await job(second)).status !== 'running', 50)).toBe(true);
    expect(ended).toMatchObject({ status: 'done', total: 10_112, done: 10_112, created: 10_112, updated: 0, unchanged: 0, failed: 0 });

    const records = await exportOf(second, ws.key);
    expect(records.filter((r) => r.type === 'click')).toHaveLength(CLICKS);
    expect(records.filter((r) => r.type === 'lead')).toHaveLength(100);
    expect(await analyticsBy(second, ws.key, 'country')).toEqual([
      { key: 'FR', clicks: 5000, leads: 50, sales: 0, saleAmount: 0, revenue: {}, refunded: {} },
      { key: 'GB', clicks: 5000, leads: 50, sales: 0, saleAmount: 0, revenue: {}, refunded: {} },
    ]);
  });
});
