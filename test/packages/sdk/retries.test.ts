/**
 * The SDK's retries (operations.md §16): reads and writes again after Retry-After on a 429,
 * reads again on a 503, a write never after a 503 (it may have been stored), and no more than
 * maxRetries times. The server's clock is the test's: the SDK's sleep moves it, so a
 * 60-second rate-limit window passes at once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Linktrail, LinktrailError } from '../../../packages/sdk/src/index.js';
import { click, countingClient, startLiveServer, startProxy, type LiveServer, type Proxy } from './live.js';

let nowMs = Date.now();
let live: LiveServer;
const proxies: Proxy[] = [];
/** Waits the SDK asked for; each moves the server's clock on instead of passing real time. */
const sleeps: number[] = [];
const sleep = async (ms: number) => {
  sleeps.push(ms);
  nowMs += ms;
};

beforeAll(async () => {
  live = await startLiveServer({ clock: () => new Date(nowMs) });
});

afterEach(() => {
  sleeps.length = 0;
});

afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await live?.close();
});

async function proxy(plan: Parameters<typeof startProxy>[1]): Promise<Proxy> {
  const p = await startProxy(live.baseUrl, plan);
  proxies.push(p);
  return p;
}

async function failure(p: Promise<unknown>): Promise<LinktrailError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LinktrailError);
  return error as LinktrailError;
}

describe('429', () => {
  it('a write and a read are sent again once Retry-After has passed, and stored once', async () => {
    const ws = await live.t.workspace({ rateLimitPerMinute: 3 });
    const { client, sent } = countingClient({ apiKey: ws.key, baseUrl: live.baseUrl, sleep });
    await client.tags.create([{ name: 'first' }]);
    await client.tags.list().toArray();
    await client.tags.list().toArray();

    // The window is full: the server answers 429 with Retry-After 60, the SDK waits 60 s (of the test's clock).
    await client.tags.create([{ name: 'second' }]);
    expect(sleeps).toEqual([60_000]);
    expect(sent.filter((s) => s.method === 'POST')).toHaveLength(3);

    await client.tags.list().toArray();
    await client.tags.list().toArray();
    const names = (await client.tags.list({ sort: 'asc' }).toArray()).map((t) => t.name);
    expect(names).toEqual(['first', 'second']);
    expect(sleeps).toEqual([60_000, 60_000]);
  });

  it('gives up after maxRetries with the 429 as a typed error carrying retryAfter', async () => {
    const ws = await live.t.workspace({ rateLimitPerMinute: 1 });
    // A sleep that lets no time pass: the window never frees.
    const waits: number[] = [];
    const client = new Linktrail({ apiKey: ws.key, baseUrl: live.baseUrl, maxRetries: 2, sleep: async (ms) => void waits.push(ms) });
    await client.tags.list().toArray();
    const error = await failure(client.tags.list().toArray());
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 60 });
    expect(waits).toEqual([60_000, 60_000]);
  });
});

describe('503', () => {
  it('a write answered 503 after it was stored is not sent again: stored once, the caller gets the error', async () => {
    const ws = await live.t.workspace({ rateLimitPerMinute: 1_000_000 });
    const direct = new Linktrail({ apiKey: ws.key, baseUrl: live.baseUrl });
    const [collection] = await direct.collections.create([{ name: 'Proxied' }]);
    const [link] = await direct.links.create([{ url: 'https://shop.example/p', collectionId: collection!.id }]);
    const clickId = await click(live.t, link!.shortUrl);

    const behind = await proxy((req) => (req.method === 'GET' ? { answer: 'pass' } : { answer: 503, forward: true }));
    const client = new Linktrail({ apiKey: ws.key, baseUrl: behind.baseUrl, sleep });

    const tagError = await failure(client.tags.create([{ name: 'once' }]));
    expect(tagError).toMatchObject({ status: 503, code: 'unavailable' });
    const leadError = await failure(client.track.lead({ clickId, eventName: 'Sign up', customerExternalId: 'u-1', customerName: 'N' }));
    expect(leadError.status).toBe(503);
    expect(behind.seen.map((s) => s.method)).toEqual(['POST', 'POST']);
    expect(sleeps).toEqual([]);

    expect((await direct.tags.list().toArray()).map((t) => t.name)).toEqual(['once']);
    expect(await direct.events.list({ linkId: link!.id }).toArray()).toHaveLength(1);
  });

  it('a read is sent again after a 503, at most maxRetries times', async () => {
    const ws = await live.t.workspace({ rateLimitPerMinute: 1_000_000 });
    await new Linktrail({ apiKey: ws.key, baseUrl: live.baseUrl }).tags.create([{ name: 'read' }]);
    const flaky = await proxy((_req, index) => (index === 0 ? { answer: 503, forward: false } : { answer: 'pass' }));
    const client = new Linktrail({ apiKey: ws.key, baseUrl: flaky.baseUrl, sleep });
    expect((await client.tags.list().toArray()).map((t) => t.name)).toEqual(['read']);
    expect(flaky.seen).toHaveLength(2);
    expect(sleeps).toEqual([500]);

    sleeps.length = 0;
    const down = await proxy(() => ({ answer: 503, forward: false }));
    const error = await failure(new Linktrail({ apiKey: ws.key, baseUrl: down.baseUrl, sleep }).tags.list().toArray());
    expect(error).toMatchObject({ status: 503, code: 'unavailable' });
    expect(down.seen).toHaveLength(4);
    expect(sleeps).toEqual([500, 1_000, 2_000]);
  });
});
