/**
 * Bulk writes (operations.md §16): sent as given, split only with `{ chunk }`, each chunk
 * reported by the indices of the caller's array.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Linktrail, LinktrailError } from '../../../packages/sdk/src/index.js';
import { countingClient, startLiveServer, type LiveServer } from './live.js';

const PLAN_MAX = 5_000;
let live: LiveServer;
let key: string;
let readOnlyKey: string;
let collectionId: string;

beforeAll(async () => {
  live = await startLiveServer();
  const ws = await live.t.workspace({ maxBulkItems: PLAN_MAX, rateLimitPerMinute: 1_000_000 });
  key = ws.key;
  readOnlyKey = (await ws.newKey(['linksRead'])).key;
  const [collection] = await new Linktrail({ apiKey: key, baseUrl: live.baseUrl }).collections.create([{ name: 'Bulk' }]);
  collectionId = collection!.id;
});

afterAll(async () => {
  await live?.close();
});

const links = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ url: `https://shop.example/${from + i}`, collectionId }));

describe('25,000 links', () => {
  it('without chunk: one request, and the server’s too_many_items as a typed error', async () => {
    const { client, sent } = countingClient({ apiKey: key, baseUrl: live.baseUrl });
    const error = await client.links.create(links(25_000)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LinktrailError);
    expect(error).toMatchObject({ status: 400, code: 'too_many_items' });
    // `limit` in the body is new to the server: when it sends it, it is the plan's maximum.
    expect((error as LinktrailError).limit ?? PLAN_MAX).toBe(PLAN_MAX);
    expect(sent).toHaveLength(1);
  });

  it('with { chunk: true }: split into the plan’s maximum, learnt from the refusal, each chunk reported', async () => {
    const { client, sent } = countingClient({ apiKey: key, baseUrl: live.baseUrl });
    const result = await client.links.create(links(25_000), { chunk: true });
    expect(result.ok).toBe(true);
    expect(result.chunks.map(({ start, end, status }) => ({ start, end, status }))).toEqual(
      [0, 5_000, 10_000, 15_000, 20_000].map((start) => ({ start, end: start + PLAN_MAX, status: 'stored' })),
    );
    const stored = result.chunks.flatMap((c) => (c.status === 'stored' ? c.result : []));
    expect(stored.map((l) => l.url)).toEqual(links(25_000).map((l) => l.url));
    // One refused try of the API's ceiling, then five requests of the plan's maximum.
    expect(sent).toHaveLength(6);

    // The client remembers the maximum: no refused try the next time.
    sent.length = 0;
    const removed = await client.links.delete(
      stored.slice(0, 5_001).map((l) => l.id),
      { chunk: true },
    );
    expect(removed.chunks.map((c) => [c.start, c.end, c.status === 'stored' && c.result.deletedIds.length])).toEqual([
      [0, 5_000, 5_000],
      [5_000, 5_001, 1],
    ]);
    expect(sent).toHaveLength(2);
  });
});

describe('chunk outcomes', () => {
  it('a refused chunk names the caller’s index of the bad item; the other chunks are stored', async () => {
    const client = new Linktrail({ apiKey: key, baseUrl: live.baseUrl });
    const items = links(12, 100_000);
    items[7] = { ...items[7]!, url: 'http://shop.example/not-https' };
    const result = await client.links.upsert(items, { chunk: 5 });
    expect(result.ok).toBe(false);
    expect(result.chunks.map(({ start, end, status }) => [start, end, status])).toEqual([
      [0, 5, 'stored'],
      [5, 10, 'failed'],
      [10, 12, 'stored'],
    ]);
    const failed = result.chunks[1]!;
    expect(failed.status === 'failed' && [failed.itemIndex, failed.error.field, failed.error.status]).toEqual([7, '[2].url', 400]);
  });

  it('a refusal every chunk would share (a missing scope) is not sent again: the rest are skipped', async () => {
    const { client, sent } = countingClient({ apiKey: readOnlyKey, baseUrl: live.baseUrl });
    const result = await client.links.create(links(4, 200_000), { chunk: 2 });
    expect(result.chunks.map((c) => [c.start, c.end, c.status, c.status !== 'stored' && c.error.status])).toEqual([
      [0, 2, 'failed', 403],
      [2, 4, 'skipped', 403],
    ]);
    expect(sent).toHaveLength(1);
  });
});
