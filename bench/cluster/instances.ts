/**
 * The Linktrail instances: `node dist/main.js` (as `npm start` runs it), each on its own address
 * with its own DATA_DIR (its click spool survives a kill and is replayed by the next start),
 * all on the same PostgreSQL primary and replica, Redis and SECRET.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_ADMIN, BENCH_SECRET } from '../server.js';
import type { Place } from './network.js';
import type { Teardown } from './teardown.js';

export interface Instance {
  name: string;
  place: Place;
  port: number;
  child?: ChildProcess;
  exited?: Promise<void>;
}

export interface Shared {
  publicUrl: string;
  databaseUrl(gateway: string): string;
  readUrl(gateway: string): string;
  redisUrl(gateway: string): string;
}

export function startInstance(t: Teardown, instance: Instance, shared: Shared): void {
  const dataDir = join(t.dir, instance.name);
  mkdirSync(dataDir, { recursive: true });
  const log = openSync(join(t.dir, `${instance.name}.log`), 'a');
  const { gateway } = instance.place;
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: String(instance.port),
    HOST: instance.place.address,
    BASE_URL: shared.publicUrl,
    DATABASE_URL: shared.databaseUrl(gateway),
    DATABASE_READ_URL: shared.readUrl(gateway),
    REDIS_URL: shared.redisUrl(gateway),
    SECRET: BENCH_SECRET,
    ADMIN_TOKEN: BENCH_ADMIN,
    DATA_DIR: dataDir,
    TRUST_PROXY: 'true',
    LOG_LEVEL: 'info',
  };
  const [cmd, ...prefix] = [...instance.place.exec, process.execPath];
  // `ip netns exec` replaces itself with node: the pid is the instance's.
  const child = spawn(cmd!, [...prefix, '--max-semi-space-size=64', 'dist/main.js'], { env, stdio: ['ignore', log, log] });
  t.undo(`kill -9 ${child.pid} 2>/dev/null`);
  instance.child = child;
  instance.exited = new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Waits (bounded) until the instance answers /readyz on its own address. */
export async function waitReady(instance: Instance, withinMs = 60_000): Promise<void> {
  const url = `http://${instance.place.address}:${instance.port}/readyz`;
  for (const deadline = Date.now() + withinMs; Date.now() < deadline;) {
    if (instance.child?.exitCode !== null) throw new Error(`${instance.name} exited during start (see its log)`);
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(1000) })).ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${instance.name} not ready within ${withinMs / 1000} s`);
}

/** Sends `signal` and waits for the exit (bounded: a SIGTERM drains for up to 15 s). */
export async function stopInstance(instance: Instance, signal: NodeJS.Signals): Promise<void> {
  if (!instance.child || instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  instance.child.kill(signal);
  await Promise.race([instance.exited, new Promise((r) => setTimeout(r, 20_000))]);
}
