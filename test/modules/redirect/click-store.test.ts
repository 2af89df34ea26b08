import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { newId } from '../../../src/db/ids.js';
import { storeClicks, type ClickRow } from '../../../src/modules/redirect/store.js';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function aLink() {
  const ws = await t.workspace();
  const [c] = (await t.inject({ method: 'POST', url: '/api/collections', headers: bearer(ws.key), payload: [{ name: 'c' }] })).json();
  const [link] = (
    await t.inject({ method: 'POST', url: '/api/links', headers: bearer(ws.key), payload: [{ url: 'https://example.com/', collectionId: c.id }] })
  ).json();
  return { workspaceId: ws.id, linkId: link.id as string };
}

const click = (workspaceId: string, linkId: string, referrerUrl: string | null): ClickRow => ({
  id: newId(),
  workspaceId,
  linkId,
  partnerId: null,
  createdAt: new Date().toISOString(),
  country: 'GB',
  device: 'desktop',
  browser: 'Chrome',
  os: 'Linux',
  referrer: 'example.org',
  referrerUrl,
  bot: false,
});

describe('click batches (COPY on PostgreSQL, JSON on the embedded engine)', () => {
  test('store every value exactly, including tabs, newlines, backslashes, unicode and nulls', async () => {
    const { workspaceId, linkId } = await aLink();
    const tricky = ['https://a.example/?q=tab\there', 'line\nbreak\r\n', 'back\\slash \\N \\t', 'café ☕ 𝄞', null];
    const batch = tricky.map((r) => click(workspaceId, linkId, r));
    await storeClicks(t.database, batch);
    const stored = await rows<{ id: string; referrerUrl: string | null }>(
      t.database.db,
      sql`SELECT id, referrer_url AS "referrerUrl" FROM clicks WHERE link_id = ${linkId}`,
    );
    const byId = new Map(stored.map((r) => [r.id, r.referrerUrl]));
    expect(stored).toHaveLength(batch.length);
    for (const c of batch) expect(byId.get(c.id)).toBe(c.referrerUrl);
  });

  test('a batch written twice (a retry after an unclear failure) is stored once, without error', async () => {
    const { workspaceId, linkId } = await aLink();
    const batch = [click(workspaceId, linkId, null), click(workspaceId, linkId, 'https://r.example/')];
    await storeClicks(t.database, batch);
    await storeClicks(t.database, batch);
    const counted = await rows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM clicks WHERE link_id = ${linkId}`);
    expect(counted[0]?.n).toBe(2);
  });
});
