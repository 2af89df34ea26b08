/**
 * DATABASE_READ_URL (issue 15, "Beyond one machine"): the analytics reads go to a PostgreSQL
 * streaming replica; writes and the reads that must see them stay on the primary.
 *
 * The configuration checks run on every engine. The rest runs in the PostgreSQL run only, on a
 * real replica made here (pg_basebackup of the DATABASE_URL server, started on a free port):
 * with replay paused on the replica, new events are written to the primary and the answers
 * that still lack them can only have come from the replica; once it is more than 5 s behind
 * (operations.md §17), or down, the primary answers them; after resuming they appear. It
 * skips, saying why, when this machine cannot make a replica (server binaries missing, or the
 * primary refuses replication connections: see replicaUnavailable), and fails so under CI.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { workspaceWithCollection } from '../helpers/client.js';
import { query, replicaUnavailable, startReplica, type Replica } from '../helpers/replica.js';
import { available } from '../helpers/requirements.js';
import { DESKTOP, UUID } from '../helpers/visitors.js';
import { within } from '../helpers/wait.js';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';

describe('DATABASE_READ_URL configuration', () => {
  const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: 'memory://', SECRET, ...env });

  it('is unset by default, and kept as given beside DATABASE_URL (postgres: or postgresql:)', () => {
    expect(load({}).databaseReadUrl).toBeUndefined();
    expect(load({ DATABASE_URL: 'postgres://db/lt', DATABASE_READ_URL: '' }).databaseReadUrl).toBeUndefined();
    const c = load({ DATABASE_URL: 'postgres://primary/lt', DATABASE_READ_URL: 'postgresql://u:p@replica:5433/lt' });
    expect(c.databaseUrl).toBe('postgres://primary/lt');
    expect(c.databaseReadUrl).toBe('postgresql://u:p@replica:5433/lt');
  });

  it.each([
    ['without DATABASE_URL', { DATABASE_READ_URL: 'postgres://replica/lt' }, /DATABASE_READ_URL needs DATABASE_URL/],
    [
      'not a postgres URL',
      { DATABASE_URL: 'postgres://primary/lt', DATABASE_READ_URL: 'mysql://replica/lt' },
      /DATABASE_READ_URL must start with postgres:\/\/ or postgresql:\/\//,
    ],
    ['not a URL', { DATABASE_URL: 'postgres://primary/lt', DATABASE_READ_URL: 'replica:5433' }, /DATABASE_READ_URL must/],
  ])('is refused %s, with one line naming it', (_label, env, message) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(message);
  });
});

const primaryUrl = process.env.DATABASE_URL;
/** The PostgreSQL run only (DATABASE_URL set); there, a machine that cannot make a replica skips saying why, and fails under CI. */
const replicaRunnable = primaryUrl !== undefined && available('the streaming replica tests', await replicaUnavailable(primaryUrl));

describe.runIf(replicaRunnable)('analytics reads on a streaming replica', () => {
  /** Each test's own database on the primary, replica of it and app reading from that replica (the second test stops its replica). */
  async function onReplica(test: (s: Awaited<ReturnType<typeof setUp>>) => Promise<void>): Promise<void> {
    const s = await setUp();
    try {
      await test(s);
    } finally {
      await s.close();
    }
  }

  async function setUp() {
    const dbName = `lt_replica_${randomBytes(5).toString('hex')}`;
    const u = new URL(primaryUrl!);
    u.pathname = `/${dbName}`;
    const dbUrl = u.href;
    let replica: Replica | undefined;
    let t: TestApp | undefined;
    const close = async () => {
      try {
        await t?.close();
      } finally {
        try {
          replica?.remove();
        } finally {
          await query(primaryUrl!, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
        }
      }
    };
    try {
      await query(primaryUrl!, `CREATE DATABASE ${dbName}`);
      replica = await startReplica(primaryUrl!);
      // The app migrates the primary; the replica replays the migrations like any other write.
      t = await startTestApp({ env: { DATABASE_URL: dbUrl, DATABASE_READ_URL: replica.url(dbName) } });
      const api = await workspaceWithCollection(t);
      const link = await api.send('POST', '/api/links', [{ url: 'https://shop.example/landing', collectionId: api.collectionId }]);
      expect(link.statusCode, link.body).toBe(201);
      const linkId = link.json<{ id: string }[]>()[0]!.id;
      const shortPath = new URL(link.json<{ shortUrl: string }[]>()[0]!.shortUrl).pathname;
      return { dbName, dbUrl, replica, t, api, linkId, shortPath, close, ...reads(replica, dbName, t, api, linkId, shortPath) };
    } catch (err) {
      await close();
      throw err;
    }
  }

  /** The visits, conversions and reads of one setUp. */
  function reads(replica: Replica, dbName: string, t: TestApp, api: Awaited<ReturnType<typeof workspaceWithCollection>>, linkId: string, shortPath: string) {
    /** A visitor opens the short link; the click id the redirect hands out. */
    async function click(): Promise<string> {
      const res = await t.inject({ method: 'GET', url: shortPath, remoteAddress: '81.2.69.160', headers: { 'user-agent': DESKTOP } });
      expect(res.statusCode, res.body).toBe(302);
      const clickId = new URL(res.headers.location as string).searchParams.get('ltid');
      expect(clickId).toMatch(UUID);
      return clickId!;
    }

    /**
     * `n` clicks, then a lead on the last: tracking a click still in the queue writes the whole
     * queue first, so the clicks and the lead are all on the primary when this returns.
     */
    async function clicksAndLead(n: number): Promise<{ leadId: string; customerExternalId: string }> {
      let clickId = '';
      for (let i = 0; i < n; i++) clickId = await click();
      const customerExternalId = `cust-${randomBytes(4).toString('hex')}`;
      const lead = await api.send('POST', '/api/track/lead', { clickId, eventName: 'Sign up', customerExternalId, customerName: 'Ada' });
      expect(lead.statusCode, lead.body).toBe(200);
      return { leadId: lead.json<{ id: string }>().id, customerExternalId };
    }

    const clicksInAnalytics = async () => {
      const res = await api.send('GET', `/api/analytics?linkId=${linkId}&take=1000`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<unknown[]>().length;
    };
    const eventIds = async (format: 'json' | 'csv' = 'json') => {
      const res = await api.send('GET', `/api/events?type=lead&sort=asc&format=${format}`);
      expect(res.statusCode, res.body).toBe(200);
      if (format === 'json') return res.json<{ id: string }[]>().map((e) => e.id);
      return res.body
        .trim()
        .split('\r\n')
        .slice(1)
        .map((line) => line.split(',')[1]);
    };
    const customerIds = async () => {
      const res = await api.send('GET', '/api/customers?take=100');
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ externalId: string }[]>().map((c) => c.externalId);
    };
    const replayPaused = async () => (await replica.query<{ state: string }>(dbName, 'SELECT pg_get_wal_replay_pause_state() AS state'))[0]!.state === 'paused';
    return { clicksAndLead, clicksInAnalytics, eventIds, customerIds, replayPaused };
  }

  it('answers GET /api/events from the replica and the writes and read-your-write paths from the primary', () =>
    onReplica(async ({ replica, dbName, dbUrl, api, clicksAndLead, clicksInAnalytics, eventIds, customerIds, replayPaused }) => {
      const first = await clicksAndLead(3);
      await replica.caughtUp(dbName, 10_000);
      expect(await eventIds()).toEqual([first.leadId]);
      expect(await clicksInAnalytics()).toBe(3);

      // Replay paused: whatever the primary gets now, the replica does not have.
      await replica.query(dbName, 'SELECT pg_wal_replay_pause()');
      if (!(await within(10_000, replayPaused, 20))) throw new Error(`replay did not pause\n${replica.log()}`);
      const second = await clicksAndLead(2);
      const [{ leads }] = (await query<{ leads: number }>(dbUrl, 'SELECT count(*)::int AS leads FROM lead_events')) as [{ leads: number }];
      expect(leads).toBe(2); // on the primary
      expect(await eventIds()).toEqual([first.leadId]); // from the replica
      expect(await eventIds('csv')).toEqual([first.leadId]);
      expect(await clicksInAnalytics()).toBe(3); // from the replica too

      // Writes, and the reads that must see them, go to the primary while the replica lags.
      expect(await customerIds()).toContain(second.customerExternalId);
      const created = await api.send('POST', '/api/links', [{ url: 'https://shop.example/new', collectionId: api.collectionId }]);
      expect(created.statusCode, created.body).toBe(201);
      const newId = created.json<{ id: string }[]>()[0]!.id;
      const listed = await api.send('GET', '/api/links?take=100');
      expect(listed.statusCode, listed.body).toBe(200);
      expect(listed.json<{ id: string }[]>().map((l) => l.id)).toContain(newId);

      // More than 5 s behind, the replica no longer answers them: the primary does (§17).
      if (!(await within(20_000, async () => (await eventIds()).includes(second.leadId), 250)))
        throw new Error('the analytics reads stayed on a replica more than 5 s behind');
      expect(await eventIds()).toEqual([first.leadId, second.leadId]);
      expect(await eventIds('csv')).toEqual([first.leadId, second.leadId]);
      expect(await clicksInAnalytics()).toBe(5);
      expect(await replayPaused()).toBe(true);

      // Resumed, the replica catches up and the same reads show the new events.
      await replica.query(dbName, 'SELECT pg_wal_replay_resume()');
      await replica.caughtUp(dbName, 10_000);
      expect(await eventIds()).toEqual([first.leadId, second.leadId]);
      expect(await eventIds('csv')).toEqual([first.leadId, second.leadId]);
      expect(await clicksInAnalytics()).toBe(5);
    }));

  it('answers the analytics reads from the primary while the replica is down, and everything else as before', () =>
    onReplica(async ({ replica, dbName, t, api, linkId, clicksAndLead, eventIds }) => {
      const { leadId } = await clicksAndLead(1);
      await replica.caughtUp(dbName, 10_000);
      expect(await eventIds()).toEqual([leadId]);
      replica.stop();
      // The replica is probed every second; once it cannot be asked, the primary answers (a 503 until then, nothing else).
      let events = await api.send('GET', '/api/events?type=lead');
      const answered = await within(
        10_000,
        async () => {
          events = await api.send('GET', '/api/events?type=lead');
          if (events.statusCode !== 200) expect(events.statusCode, events.body).toBe(503);
          return events.statusCode === 200;
        },
        200,
      );
      expect(answered, events.body).toBe(true);
      expect(events.json<{ id: string }[]>().map((e) => e.id)).toEqual([leadId]);
      const analytics = await api.send('GET', `/api/analytics?linkId=${linkId}`);
      expect(analytics.statusCode, analytics.body).toBe(200);
      // The primary still serves: a redirect, a lead, the links, and /readyz (which checks the primary only).
      await clicksAndLead(1);
      expect((await api.send('GET', '/api/links')).statusCode).toBe(200);
      expect((await t.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    }));
});
