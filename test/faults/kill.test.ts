/**
 * SIGKILL of the service in the middle of a bulk write (PostgreSQL runs only).
 *
 * The built service (`node dist/main.js`) runs on a database of its own, created here. A
 * 10,000-link POST /api/links is sent and the process is killed with SIGKILL: once at the
 * moment PostgreSQL shows the request's transaction writing (so the kill lands mid-write), and
 * a few times after fixed delays. Afterwards the workspace holds either none or all of the
 * 10,000 links, never a part, with exactly their tag assignments; and a fresh process on the
 * same database starts (migrations included) and serves the API.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SCOPES } from '../../src/core/scopes.js';
import { ADMIN_TOKEN, SECRET, onPostgres } from '../helpers/app.js';
import { callService, ensureBuilt, startBuiltService, type Service } from '../helpers/process.js';
import { sleep, within } from '../helpers/wait.js';

const ITEMS = 10_000;
const TAGS_PER_LINK = 2;

describe.runIf(onPostgres)('SIGKILL in the middle of a bulk write', () => {
  const real = new URL(process.env.DATABASE_URL ?? 'postgres://localhost/none');
  const dbName = `lt_fault_${randomBytes(6).toString('hex')}`;
  const dbUrl = new URL(real.href);
  dbUrl.pathname = `/${dbName}`;
  let admin: pg.Client;
  let created = false;
  let dir: string;
  const services: Service[] = [];

  async function startService(): Promise<Service> {
    const service = await startBuiltService(dir, { ADMIN_TOKEN, SECRET, DATABASE_URL: dbUrl.href });
    services.push(service);
    return service;
  }

  async function kill(service: Service): Promise<void> {
    if (!service.hasExited()) service.child.kill('SIGKILL');
    const result = await service.exited;
    expect(result.signal).toBe('SIGKILL');
  }

  /** A fresh workspace with a key, a collection and two tags, and the 10,000-link body. */
  async function prepare(s: Service) {
    const ws = await callService<{ id: string }>(s.origin, 'POST', '/admin/workspaces', ADMIN_TOKEN, {
      name: `kill-${randomBytes(3).toString('hex')}`,
      plan: 'enterprise',
    });
    const { key } = await callService<{ key: string }>(s.origin, 'POST', `/admin/workspaces/${ws.id}/keys`, ADMIN_TOKEN, { name: 'kill', scopes: SCOPES });
    const [collection] = await callService<{ id: string }[]>(s.origin, 'POST', '/api/collections', key, [{ name: 'Bulk' }]);
    const tags = await callService<{ id: string }[]>(s.origin, 'POST', '/api/tags', key, [{ name: 'alpha' }, { name: 'beta' }]);
    const tagIds = tags.map((t) => t.id);
    expect(tagIds).toHaveLength(TAGS_PER_LINK);
    const items = Array.from({ length: ITEMS }, (_, i) => ({ url: `https://shop.example/item/${i}?v=1`, collectionId: collection!.id, tagIds }));
    return { workspaceId: ws.id, key, body: JSON.stringify(items) };
  }

  /** The ids of the transactions writing in the test's database now. */
  const writingXids = async () =>
    (
      await admin.query<{ xid: string }>('select backend_xid::text as xid from pg_stat_activity where datname = $1 and backend_xid is not null', [dbName])
    ).rows.map((r) => r.xid);
  const writing = async () => (await writingXids()).length > 0;

  /** What PostgreSQL holds for the workspace once the killed process's transaction is gone. */
  async function stored(workspaceId: string) {
    const ended = await within(15_000, async () => !(await writing()), 50);
    expect(ended, 'a transaction of the killed process is still open').toBe(true);
    const client = new pg.Client({ connectionString: dbUrl.href });
    await client.connect();
    try {
      const l = await client.query<{ n: number }>('select count(*)::int as n from links where workspace_id = $1', [workspaceId]);
      const t = await client.query<{ n: number; bad: number }>(
        `select count(*)::int as n,
                count(*) filter (where t.workspace_id is distinct from l.workspace_id)::int as bad
           from link_tags lt join links l on l.id = lt.link_id left join tags t on t.id = lt.tag_id
          where l.workspace_id = $1`,
        [workspaceId],
      );
      const untagged = await client.query<{ n: number }>(
        `select count(*)::int as n from links l
          where l.workspace_id = $1 and (select count(*) from link_tags lt where lt.link_id = l.id) <> $2`,
        [workspaceId, TAGS_PER_LINK],
      );
      return { links: l.rows[0]!.n, linkTags: t.rows[0]!.n, foreignTags: t.rows[0]!.bad, wronglyTagged: untagged.rows[0]!.n };
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'lt-kill-'));
    admin = new pg.Client({ connectionString: real.href });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    created = true;
  }, 240_000);

  afterAll(async () => {
    for (const s of services) if (!s.hasExited()) await kill(s).catch(() => undefined);
    if (admin) {
      if (created) await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('none or all of the 10,000 links, never a part; a new process starts on the same database and serves', async () => {
    // 'write': killed when PostgreSQL shows the transaction writing; numbers: ms after the fetch began.
    const plans: ('write' | number)[] = ['write', 100, 200, 300, 600, 3000];
    const outcomes: { plan: string; links: number; answered: boolean; killedWhileWriting: boolean; workspaceId: string; key: string }[] = [];
    let service = await startService();
    for (const plan of plans) {
      const { workspaceId, key, body } = await prepare(service);
      let answered = false;
      const request = fetch(`${service.origin}/api/links`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body,
      }).then(
        async (res) => {
          await res.arrayBuffer();
          answered = true;
          return res.status;
        },
        () => undefined,
      );
      let killedWhileWriting = false;
      if (plan === 'write') {
        // The bulk write's transaction, not a short one beside it (a new process's table
        // statistics, a key's last use): once, CI's kill found a transaction id that was gone at
        // the next look, the write not yet begun. The same id seen twice, 30 ms apart, is a write under way.
        const deadline = Date.now() + 60_000;
        while (!answered && Date.now() < deadline) {
          const seen = await writingXids();
          if (seen.length === 0) {
            await sleep(2);
            continue;
          }
          await sleep(30);
          const again = await writingXids();
          if (!answered && seen.some((xid) => again.includes(xid))) {
            killedWhileWriting = true;
            break;
          }
        }
      } else {
        await sleep(plan); // the subject: a kill this many ms into the request
        killedWhileWriting = !answered && (await writing());
      }
      await kill(service);
      const status = await request;
      const after = await stored(workspaceId);
      outcomes.push({ plan: String(plan), links: after.links, answered, killedWhileWriting, workspaceId, key });

      // Never a part: none or all, and every stored link has exactly its two tags of this workspace.
      expect([0, ITEMS], `plan ${plan}: ${after.links} links (answered ${status})`).toContain(after.links);
      expect(after.linkTags).toBe(after.links * TAGS_PER_LINK);
      expect(after.foreignTags).toBe(0);
      expect(after.wronglyTagged).toBe(0);
      // An answered 201 promised all of them.
      if (status === 201) expect(after.links).toBe(ITEMS);

      // A fresh process on the same database starts (migrations run again) and serves.
      service = await startService();
      const listed = await callService<{ id: string }[]>(service.origin, 'GET', '/api/links?take=5000', key);
      expect(listed).toHaveLength(Math.min(after.links, 5000));
    }
    // At least one kill landed while the transaction was writing.
    expect(
      outcomes.filter((o) => o.killedWhileWriting).map((o) => o.plan),
      JSON.stringify(outcomes),
    ).not.toEqual([]);

    // The last process takes the whole write, and every workspace reads back consistently.
    const full = await prepare(service);
    const res = await fetch(`${service.origin}/api/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${full.key}`, 'content-type': 'application/json' },
      body: full.body,
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as unknown[]).length).toBe(ITEMS);
    expect(await stored(full.workspaceId)).toEqual({ links: ITEMS, linkTags: ITEMS * TAGS_PER_LINK, foreignTags: 0, wronglyTagged: 0 });
    const ready = await fetch(`${service.origin}/readyz`);
    expect(ready.status).toBe(200);
    for (const o of outcomes) {
      const page = await fetch(`${service.origin}/api/links?take=1`, { headers: { authorization: `Bearer ${o.key}` } });
      expect(page.status).toBe(200);
      expect(((await page.json()) as unknown[]).length).toBe(o.links > 0 ? 1 : 0);
    }
  }, 240_000);
});
