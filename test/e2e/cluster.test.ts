/**
 * `npm run cluster -- --quick` (operations.md §17): PostgreSQL primary and replica, Redis, three
 * instances behind HAProxy, one SIGKILLed and started again, all three restarted in turn, under
 * redirect and API load. Every redirect HAProxy passed on has its click stored, every 2xx lead
 * and sale its event, and no API request failed but those in flight on the killed instance.
 * The script makes its own PostgreSQL clusters, so it runs once, alone at the end of the
 * PostgreSQL pass (scripts/test-all.sh; vitest.config.ts leaves it out without CLUSTER_TEST=1); it
 * skips, saying why, where HAProxy, wrk or the PostgreSQL server binaries are missing (and fails
 * so under CI).
 */
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { postgresUnavailable } from '../../bench/cluster/postgres.js';
import { ensureBuilt, inheritedEnv, ROOT } from '../helpers/process.js';
import { available } from '../helpers/requirements.js';

/** The PostgreSQL pass only; there, HAProxy, wrk and the PostgreSQL server binaries are needed (under CI they must be there). */
function runnable(): boolean {
  if (!process.env.DATABASE_URL) {
    console.log('cluster test skipped: it runs in the PostgreSQL pass of npm run test:all');
    return false;
  }
  const missing = ['haproxy', 'wrk'].map((program) => (spawnSync(program, ['-v']).error ? `${program} is not installed` : undefined));
  return available('the cluster test', ...missing, postgresUnavailable());
}

function runCluster(): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/cluster/main.ts', '--quick'], {
      cwd: ROOT,
      env: inheritedEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const limit = setTimeout(() => child.kill('SIGTERM'), 240_000);
    child.once('exit', (code) => {
      clearTimeout(limit);
      resolve({ code, out });
    });
  });
}

const figure = (out: string, name: string): string => new RegExp(`^${name}: (.*)$`, 'm').exec(out)?.[1] ?? `(no "${name}" line)`;

describe.runIf(runnable())('npm run cluster --quick', () => {
  it('loses no click and no conversion through a SIGKILL and a rolling restart', { timeout: 300_000 }, async () => {
    ensureBuilt();
    const { code, out } = await runCluster();
    expect(code, out).toBe(0);
    expect(figure(out, 'clicks lost'), out).toMatch(/^0\b/);
    expect(figure(out, 'every 2xx stored, nothing stored twice'), out).toBe('yes');
    expect(figure(out, "API 5xx outside the killed instance's in-flight requests"), out).toBe('0');
    expect(figure(out, 'non-3xx redirects'), out).toBe('0');
  });
});
