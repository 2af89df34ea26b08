/**
 * People scenario (operations.md §7–8), on one built server process over PostgreSQL + Redis:
 * GET /api/links?take=50 with an API key, a human token and the session cookie, measured in
 * alternating rounds so the machine's drift hits all three alike (target: session and token
 * within 10 % of the key), then POST /api/auth/login with the right password at 20 connections
 * (target p99 < 300 ms). Load goes to 127.0.0.1 only; every answer must be a 2xx.
 */
import autocannon from 'autocannon';
import { pathToFileURL } from 'node:url';
import { BENCH_ADMIN, startServer } from './server.js';

const EMAIL = 'bench-person@example.com';
const PASSWORD = 'plum-lantern-orbit-4711';
const LINKS = 250;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Load {
  rps: number;
  p50: number;
  p99: number;
  /** Non-2xx answers, socket errors and timeouts together. */
  failed: number;
}

async function load(url: string, headers: Record<string, string>, seconds: number, connections: number, body?: string): Promise<Load> {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body,
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, failed: result.non2xx + result.errors + result.timeouts };
}

/** One request that must answer `expected`; the body of anything else is in the error. */
async function call(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
  expected: number,
): Promise<{ json: Json; headers: Headers }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} (expected ${expected}) ${text.slice(0, 300)}`);
  return { json: text ? JSON.parse(text) : null, headers: res.headers };
}

/** A person who owns an enterprise workspace of LINKS links, and the three credentials of that workspace. */
async function seedPerson(base: string): Promise<{ workspaceId: string; credentials: [string, Record<string, string>][] }> {
  const admin = { authorization: `Bearer ${BENCH_ADMIN}` };
  const user = (await call(base, 'POST', '/admin/users', admin, { email: EMAIL, name: 'Bench Person', password: PASSWORD }, 201)).json;
  const ws = (await call(base, 'POST', '/admin/workspaces', admin, { name: 'bench people', plan: 'enterprise' }, 201)).json;
  // The plan's 10,000 a minute would be the ceiling otherwise, not the credential.
  await call(base, 'PATCH', `/admin/workspaces/${ws.id}`, admin, { rateLimitPerMinute: 1_000_000 }, 200);
  await call(base, 'POST', `/admin/workspaces/${ws.id}/members`, admin, { userId: user.id, role: 'owner' }, 201);
  const { key } = (
    await call(base, 'POST', `/admin/workspaces/${ws.id}/keys`, admin, { name: 'bench', scopes: ['linksRead', 'linksWrite', 'collectionsWrite'] }, 201)
  ).json;
  const keyHeaders = { authorization: `Bearer ${key}` };
  // Every link belongs to a collection.
  const [collection] = (await call(base, 'POST', '/api/collections', keyHeaders, [{ name: 'bench' }], 201)).json;
  const items = Array.from({ length: LINKS }, (_, i) => ({ url: `https://example.com/p${i}`, collectionId: collection.id }));
  await call(base, 'POST', '/api/links', keyHeaders, items, 201);

  const login = await call(base, 'POST', '/api/auth/login', {}, { email: EMAIL, password: PASSWORD }, 200);
  const cookie = /^((?:__Host-)?lt_session=[^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
  if (!cookie) throw new Error(`login set no session cookie: ${login.headers.get('set-cookie')}`);
  const { token } = (await call(base, 'POST', '/api/me/tokens', { cookie }, { name: 'bench', workspaceId: ws.id, scopes: ['linksRead'] }, 201)).json;
  if (!String(token).startsWith('ltp_')) throw new Error(`POST /api/me/tokens gave no ltp_ token: ${token}`);
  return {
    workspaceId: ws.id,
    credentials: [
      ['API key', keyHeaders],
      ['human token', { authorization: `Bearer ${token}` }],
      // No Origin header: a first-party request as the rule of §7 reads it.
      ['session cookie', { cookie, 'x-workspace-id': ws.id }],
    ],
  };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const list = (xs: number[], digits = 0) => xs.map((x) => x.toFixed(digits)).join(' / ');

export async function benchPeople(seconds = 5, rounds = 3, loginSeconds = 10): Promise<{ name: string; value: string }[]> {
  if (!process.env.DATABASE_URL) throw new Error('benchPeople needs DATABASE_URL');
  const server = await startServer();
  const rows: { name: string; value: string }[] = [];
  let failed = 0;
  try {
    const { credentials } = await seedPerson(server.base);
    const url = `${server.base}/api/links?take=50`;
    for (const [name, headers] of credentials) {
      const page = (await call(server.base, 'GET', '/api/links?take=50', headers, undefined, 200)).json;
      const count = Array.isArray(page) ? page.length : page?.data?.length;
      if (count !== 50) throw new Error(`${name}: GET /api/links?take=50 gave ${count} links, expected 50`);
      failed += (await load(url, headers, 2, 32)).failed; // warm-up: JIT, caches, pool
    }

    const runs = new Map<string, Load[]>(credentials.map(([name]) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      // Rotate the order each round so no credential always runs first or last.
      for (let i = 0; i < credentials.length; i++) {
        const [name, headers] = credentials[(round + i) % credentials.length]!;
        const run = await load(url, headers, seconds, 32);
        runs.get(name)!.push(run);
        failed += run.failed;
      }
    }
    const key = runs.get('API key')!;
    for (const [name, results] of runs) {
      rows.push(
        { name: `GET links take=50, ${name}: req/s (${rounds} rounds × ${seconds} s, 32 conn.)`, value: list(results.map((r) => r.rps)) },
        { name: `GET links take=50, ${name}: p99 ms`, value: list(results.map((r) => r.p99)) },
      );
      if (name === 'API key') continue;
      const ratios = results.map((r, i) => r.rps / key[i]!.rps);
      rows.push({
        name: `ratio ${name} / API key req/s, per round → median (target: within 10 %)`,
        value: `${list(ratios, 2)} → ${median(ratios).toFixed(2)}`,
      });
    }

    const login = await load(`${server.base}/api/auth/login`, {}, loginSeconds, 20, JSON.stringify({ email: EMAIL, password: PASSWORD }));
    failed += login.failed;
    rows.push(
      { name: `POST /api/auth/login (${loginSeconds} s, 20 conn.): req/s`, value: login.rps.toFixed(0) },
      { name: 'POST /api/auth/login p50 / p99 ms (target p99 < 300)', value: `${login.p50} / ${login.p99}` },
    );
    rows.push({ name: 'non-2xx answers, errors and timeouts over all runs', value: String(failed) });
  } finally {
    await server.stop();
  }
  if (failed > 0) {
    console.table(rows);
    throw new Error(`people: ${failed} requests did not answer 2xx`);
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchPeople());
}
