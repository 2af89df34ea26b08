/**
 * `npm start` with WORKERS=2 on PostgreSQL and Redis: one supervisor, two whole instances
 * sharing the port, one shared rate limit, a graceful stop; and the refusal to run several
 * workers on the embedded database.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/core/scopes.js';
import { ADMIN_TOKEN, SECRET, onPostgres, onRedis } from '../helpers/app.js';
import { MAIN, ensureBuilt, freePort, inheritedEnv } from '../helpers/process.js';

// Vitest puts Vite's BASE_URL ('/') into process.env; the service would read it as its own.
const inherited = inheritedEnv();

const childrenOf = (pid: number): number[] => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

beforeAll(() => {
  ensureBuilt({ whenStale: false });
});

describe('WORKERS', () => {
  it('above 1 is refused on the embedded database, with one line naming it', () => {
    const run = spawnSync(process.execPath, [MAIN], {
      env: { ...inherited, WORKERS: '2', DATABASE_URL: '', DATA_DIR: 'memory://', PORT: '0' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).not.toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/WORKERS/);
  });

  describe.runIf(onPostgres && onRedis)('on PostgreSQL and Redis', () => {
    const dbName = `lt_workers_${Math.random().toString(36).slice(2, 10)}`;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    let url: string;

    beforeAll(async () => {
      await admin.connect();
      await admin.query(`CREATE DATABASE ${dbName}`);
      const u = new URL(process.env.DATABASE_URL!);
      u.pathname = `/${dbName}`;
      url = u.href;
    });
    afterAll(async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
    });

    it('runs two instances behind one port, sharing one rate limit, and stops them all on SIGTERM', async () => {
      const port = await freePort();
      const child = spawn(process.execPath, [MAIN], {
        env: {
          ...inherited,
          WORKERS: '2',
          DATABASE_URL: url,
          REDIS_URL: process.env.REDIS_URL,
          SECRET,
          ADMIN_TOKEN,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        const base = `http://127.0.0.1:${port}`;
        let ready = false;
        // Bounded, not timed: a loaded machine takes longer than 10 s to migrate and start two workers.
        for (let i = 0; i < 400 && !ready; i++) {
          ready = await fetch(`${base}/readyz`).then(
            (r) => r.ok,
            () => false,
          );
          if (!ready) await new Promise((r) => setTimeout(r, 100));
        }
        expect(ready).toBe(true);
        // Both workers may still be starting: wait (bounded) until the supervisor has two.
        for (let i = 0; i < 100 && childrenOf(child.pid!).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
        expect(childrenOf(child.pid!)).toHaveLength(2);

        const json = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
        const ws = (await (
          await fetch(`${base}/admin/workspaces`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'w', plan: 'free' }) })
        ).json()) as { id: string };
        await fetch(`${base}/admin/workspaces/${ws.id}`, { method: 'PATCH', headers: json, body: JSON.stringify({ rateLimitPerMinute: 20 }) });
        const { key } = (await (
          await fetch(`${base}/admin/workspaces/${ws.id}/keys`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'k', scopes: SCOPES }) })
        ).json()) as { key: string };
        // Forty requests over fresh connections land on both workers; the limit of 20 holds across them.
        const statuses: number[] = [];
        for (let i = 0; i < 40; i++) {
          const res = await fetch(`${base}/api/tags`, { headers: { authorization: `Bearer ${key}`, connection: 'close' } });
          statuses.push(res.status);
          await res.arrayBuffer();
        }
        expect(statuses.filter((s) => s === 200)).toHaveLength(20);
        expect(statuses.filter((s) => s === 429)).toHaveLength(20);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
    });
  });
});
