/**
 * link.clicked (operations.md §11) through the redirect, over a real socket and inject: written
 * by the click writer in the statement that stores the clicks, one per human click of a
 * workspace subscribed when the batch is written (learnt within 5 s), its id the click id,
 * `data` the Click record of GET /api/analytics, `timestamp` its createdAt. None for bots, HEAD
 * or prefetches; a spool batch replayed adds no event twice; a batch that fails writes none.
 *
 * Clicks are written in batches (about a second); the tests poll (bounded) for them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { newId } from '../../../src/db/ids.js';
import type { RawClick } from '../../../src/modules/clicks/record.js';
import { heartbeatName, segmentName } from '../../../src/modules/clicks/spool.js';
import { spoolFile } from '../../../src/modules/clicks/spool-format.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { DESKTOP, IP_GB, IPHONE, UUID } from '../../helpers/visitors.js';
import { within } from '../../helpers/wait.js';
import { deleteEndpoint, endpoint, eventsOf, failEventsWhere, refusalsOf, type StoredEvent } from './emit-helpers.js';

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

let t: TestApp;
let base: string;
let spoolDir: string;
let subscribed: Client;
let unsubscribed: Client;

beforeAll(async () => {
  spoolDir = mkdtempSync(join(tmpdir(), 'lt-emit-spool-'));
  t = await startTestApp({ env: { CLICK_SPOOL_DIR: spoolDir } });
  await t.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.runtime.app.server.address() as AddressInfo).port}`;
  // Subscribed before any click is written: the writer's first read already sees them.
  subscribed = await client();
  unsubscribed = await client();
  await endpoint(t, subscribed.ws.id, ['link.clicked']);
  await endpoint(t, unsubscribed.ws.id, ['link.created', 'lead.created']);
});
afterAll(async () => {
  await t?.close();
  rmSync(spoolDir, { recursive: true, force: true });
});

type Client = Awaited<ReturnType<typeof client>>;

async function client() {
  const c = await workspaceWithCollection(t);
  const res = await c.send('POST', '/api/links', [{ url: 'https://shop.example/landing', collectionId: c.collectionId }]);
  expect(res.statusCode, res.body).toBe(201);
  const link = res.json<{ id: string; shortUrl: string }[]>()[0]!;
  const path = new URL(link.shortUrl).pathname;
  return { ...c, link, path };
}

const clickIdOf = (location: string | null | undefined) => {
  const id = new URL(String(location)).searchParams.get('ltid');
  expect(id).toMatch(UUID);
  return id!;
};

/** A visit through a real socket; the click id the redirect handed out. */
async function visitBySocket(c: Client, init: RequestInit = {}): Promise<string> {
  const res = await fetch(base + c.path, { redirect: 'manual', ...init });
  expect(res.status).toBe(302);
  return clickIdOf(res.headers.get('location'));
}

/** A visit through inject; the click id the redirect handed out. */
async function visitByInject(c: Client, o: { query?: string; headers?: Record<string, string>; method?: 'GET' | 'HEAD' } = {}): Promise<string> {
  const res = await t.inject({ method: o.method ?? 'GET', url: c.path + (o.query ?? ''), remoteAddress: IP_GB, headers: o.headers });
  expect(res.statusCode, res.body).toBe(302);
  return clickIdOf(res.headers.location as string);
}

/** The Click record GET /api/analytics shows, once the click is written (bounded wait). */
async function clickRecord(c: Client, clickId: string): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined;
  const ok = await within(15_000, async () => {
    const res = await c.send('GET', `/api/analytics?id=${clickId}`);
    found = res.json<Record<string, unknown>[]>()[0];
    return found !== undefined;
  });
  expect(ok, `click ${clickId} was never written`).toBe(true);
  return found!;
}

/** Whether a click is stored (bots' clicks included: the API does not show them). */
async function stored(clickId: string): Promise<boolean> {
  return (await rows(t.database.db, sql`SELECT 1 FROM clicks WHERE id = ${clickId}::uuid`)).length > 0;
}

const clickEvents = async (c: Client): Promise<Map<string, StoredEvent>> => new Map((await eventsOf(t, c.ws.id, 'link.clicked')).map((e) => [e.id, e]));

describe('link.clicked', () => {
  it('each human click of a subscribed workspace, by socket or inject, stores one event: id the click id, data the Click record', async () => {
    const bySocket = await visitBySocket(subscribed, { headers: { 'user-agent': DESKTOP } });
    const byInject = await visitByInject(subscribed, {
      query: '?utm_source=newsletter&ltqr=1',
      headers: { 'user-agent': IPHONE, referer: 'https://news.example/today' },
    });
    const elsewhere = await visitByInject(unsubscribed, { headers: { 'user-agent': DESKTOP } });
    const records = [await clickRecord(subscribed, bySocket), await clickRecord(subscribed, byInject)];
    await clickRecord(unsubscribed, elsewhere);

    const events = await clickEvents(subscribed);
    for (const record of records) {
      const e = events.get(record.id as string)!;
      expect(e.body).toEqual({ type: 'link.clicked', timestamp: record.createdAt, data: record });
      expect(e.endpoints).toHaveLength(1);
    }
    expect(events.get(byInject)!.body.data).toMatchObject({
      linkId: subscribed.link.id,
      country: 'GB',
      device: 'mobile',
      referrer: 'news.example',
      utmSource: 'newsletter',
      trigger: 'qr',
    });
    expect(events.get(byInject)!.body.data).not.toHaveProperty('workspaceId');
    expect(events.get(byInject)!.body.data).not.toHaveProperty('bot');
    expect(await eventsOf(t, unsubscribed.ws.id, 'link.clicked')).toEqual([]);
  });

  it("a bot, a HEAD and a prefetch have no event (the bot's click is stored; HEAD and prefetch are no clicks)", async () => {
    const bot = await visitByInject(subscribed, { headers: { 'user-agent': GOOGLEBOT } });
    const botBySocket = await visitBySocket(subscribed, { headers: { 'user-agent': GOOGLEBOT } });
    const head = await visitByInject(subscribed, { method: 'HEAD', headers: { 'user-agent': DESKTOP } });
    const prefetch = await visitBySocket(subscribed, { headers: { 'user-agent': DESKTOP, 'sec-purpose': 'prefetch' } });
    // A human click after them: once it is written, so are they (one queue, in order).
    const human = await visitByInject(subscribed, { headers: { 'user-agent': DESKTOP } });
    await clickRecord(subscribed, human);
    expect(await stored(bot)).toBe(true);
    expect(await stored(botBySocket)).toBe(true);
    expect(await stored(head)).toBe(false);
    expect(await stored(prefetch)).toBe(false);
    const events = await clickEvents(subscribed);
    expect(events.has(human)).toBe(true);
    for (const id of [bot, botBySocket, head, prefetch]) expect(events.has(id)).toBe(false);
  });

  it('a new subscription is honoured within 5 s, clicks before it have none; an endpoint deleted stops them at once', async () => {
    const c = await client();
    const before = await visitByInject(c, { headers: { 'user-agent': DESKTOP } });
    await clickRecord(c, before);
    const hook = await endpoint(t, c.ws.id, ['link.clicked']);
    let first: string | undefined;
    const honoured = await within(
      9_000,
      async () => {
        const id = await visitByInject(c, { headers: { 'user-agent': DESKTOP } });
        await clickRecord(c, id);
        if ((await clickEvents(c)).has(id)) first = id;
        return first !== undefined;
      },
      250,
    );
    expect(honoured).toBe(true);
    const events = await clickEvents(c);
    expect(events.has(before)).toBe(false);
    expect(events.get(first!)!.endpoints).toEqual([hook]);

    await deleteEndpoint(t, hook);
    const after = await visitByInject(c, { headers: { 'user-agent': DESKTOP } });
    await clickRecord(c, after);
    expect((await clickEvents(c)).has(after)).toBe(false);
  });

  it('a spool batch replayed (by another instance, after a crash) adds no event twice, and the clicks new to the database get theirs', async () => {
    const known = await visitByInject(subscribed, { headers: { 'user-agent': DESKTOP } });
    const record = await clickRecord(subscribed, known);
    const firstEvent = (await clickEvents(subscribed)).get(known)!;
    expect(firstEvent).toBeDefined();

    // A writer that died after committing `known` but before removing its spool file.
    const dead = { host: 'deadhost', pid: deadPid(), boot: 'deadbeef' };
    const raw = (id: string, at: number): RawClick => ({
      id,
      workspaceId: subscribed.ws.id,
      linkId: subscribed.link.id,
      partnerId: null,
      at,
      ip: IP_GB,
      userAgent: DESKTOP,
      referer: undefined,
      country: undefined,
    });
    const fresh = newId();
    writeFileSync(join(spoolDir, segmentName(dead, 0)), spoolFile([raw(known, Date.parse(record.createdAt as string)), raw(fresh, Date.now())]));
    // No heartbeat for a while: another host's writer counts as dead.
    writeFileSync(join(spoolDir, heartbeatName(dead)), 'x');
    const old = new Date(Date.now() - 600_000);
    utimesSync(join(spoolDir, heartbeatName(dead)), old, old);

    // Another instance on the same database and spool directory replays the file as it starts.
    const other = await startTestApp({ database: t.database, env: { CLICK_SPOOL_DIR: spoolDir } });
    try {
      const replayed = await clickRecord(subscribed, fresh);
      const events = await clickEvents(subscribed);
      expect(events.get(known)).toEqual(firstEvent);
      expect(events.get(fresh)!.body).toEqual({ type: 'link.clicked', timestamp: replayed.createdAt, data: replayed });
      const counted = await rows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM webhook_events WHERE id IN (${known}::uuid, ${fresh}::uuid)`);
      expect(counted[0]!.n).toBe(2);
      const clicks = await rows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM clicks WHERE id = ${known}::uuid`);
      expect(clicks[0]!.n).toBe(1);
    } finally {
      await other.close();
    }
  });

  // Last: while its batch fails, every click of this instance waits behind it.
  it('a batch whose events cannot be stored writes no click and no event; retried, it writes each once', async () => {
    // link.clicked events keep no body to match: every one of the workspace is refused meanwhile.
    const restore = await failEventsWhere(t, 'fail_subscribed_clicks', `NEW.type = 'link.clicked' AND NEW.workspace_id = '${subscribed.ws.id}'`);
    let id: string;
    try {
      id = await visitByInject(subscribed, { headers: { 'user-agent': DESKTOP, referer: 'https://ref.example/outbox-refuses-this-click' } });
      // The batch tried and refused a few times (retried with backoff: 250 ms, 500 ms, 1 s…), and still nothing stored.
      expect(await within(20_000, async () => (await refusalsOf(t, 'fail_subscribed_clicks')) >= 3)).toBe(true);
      expect(await stored(id)).toBe(false);
      expect((await clickEvents(subscribed)).has(id)).toBe(false);
    } finally {
      await restore();
    }
    const record = await clickRecord(subscribed, id);
    const e = (await clickEvents(subscribed)).get(id)!;
    expect(e.body.data).toEqual(record);
    expect(record.referrerUrl).toBe('https://ref.example/outbox-refuses-this-click');
  });
});

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(child.stdout.trim());
}
