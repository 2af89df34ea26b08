/**
 * Helpers for tests that run the built service (`node dist/main.js`) as a real process: the
 * build, a free port, the child's environment, and one started service with its output.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from './wait.js';

/** The repository. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The built service. */
export const MAIN = join(ROOT, 'dist', 'main.js');

/** Newest modification time of the files under `dir`. */
export function newest(dir: string): number {
  let max = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    max = Math.max(max, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return max;
}

/**
 * Builds dist/ when it is missing or (unless `whenStale` is false) older than a source file,
 * else the test would run stale code. Throws with the build's output when the build fails.
 * Under `npm run test:all` (DIST_CHECKED set) `whenStale` defaults to false: the script built or
 * checked dist/ before any file ran, and a build here would empty dist/web under the browser
 * files running beside this one.
 */
export function ensureBuilt({ whenStale = process.env.DIST_CHECKED !== '1' }: { whenStale?: boolean } = {}): void {
  if (existsSync(MAIN) && (!whenStale || statSync(MAIN).mtimeMs >= newest(join(ROOT, 'src')))) return;
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 170_000 });
  if (build.status !== 0) throw new Error(`npm run build failed (${build.status ?? build.signal}):\n${build.stdout}\n${build.stderr}`);
}

/** A port nobody listens on right now (a service must know its own origin before it starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The environment of a started process: only what the test sets (no DATABASE_URL etc. leaking in). */
export function processEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...env };
}

/**
 * This process's environment for a child, without BASE_URL: Vitest puts Vite's BASE_URL ('/')
 * into process.env, and the service would read it as its own.
 */
export function inheritedEnv(): NodeJS.ProcessEnv {
  const { BASE_URL: _viteBase, ...inherited } = process.env;
  return inherited;
}

/** One running `node dist/main.js`. */
export interface Service {
  origin: string;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  hasExited(): boolean;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
}

/**
 * A JSON call to a running service as a client makes it, with a Bearer token: the parsed answer,
 * or an error with the status and body unless it is 201 (POST) or 200.
 */
export async function callService<T>(origin: string, method: string, path: string, auth: string, body?: unknown): Promise<T> {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${auth}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== (method === 'POST' ? 201 : 200)) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

/** Starts `node dist/main.js` (or another copy of it, `main`) in `cwd` with exactly `env`; it answers at `origin` once ready. */
export function spawnService(origin: string, { cwd, env, main = MAIN }: { cwd: string; env: NodeJS.ProcessEnv; main?: string }): Service {
  const child = spawn(process.execPath, [main], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let exitedFlag = false;
  child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      exitedFlag = true;
      resolve({ code, signal });
    }),
  );
  return { origin, child, exited, hasExited: () => exitedFlag, output: () => output };
}

/** Waits (bounded: 30 s) until the service's /healthz answers 200; throws if it exits first. */
export async function waitHealthy(service: Service, withinMs = 30_000): Promise<void> {
  for (let i = 0; ; i++) {
    if (service.hasExited()) throw new Error(`service exited during start:\n${service.output()}`);
    if (i >= withinMs / 100) throw new Error(`service not ready after ${withinMs / 1000} s:\n${service.output()}`);
    try {
      if ((await fetch(`${service.origin}/healthz`)).status === 200) return;
    } catch {
      /* not listening yet */
    }
    await sleep(100);
  }
}

/**
 * The built service on a free port of 127.0.0.1, started in `cwd` (a temporary directory, so a
 * developer's .env in the repository is not read) with `env` over the defaults below and this
 * run's REDIS_URL; resolved once /healthz answers within `readyWithinMs`.
 */
export async function startBuiltService(cwd: string, env: NodeJS.ProcessEnv, readyWithinMs = 30_000): Promise<Service> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const service = spawnService(origin, {
    cwd,
    env: processEnv({
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: origin,
      LOG_LEVEL: 'warn',
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
      ...env,
    }),
  });
  try {
    await waitHealthy(service, readyWithinMs);
  } catch (err) {
    if (!service.hasExited()) service.child.kill('SIGKILL');
    throw err;
  }
  return service;
}
