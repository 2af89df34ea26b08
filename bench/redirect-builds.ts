/**
 * Two builds of the redirect against each other and the bare node:http 302 (issue 48):
 * `node --import tsx bench/redirect-builds.ts` after `npm run build`, with BUILD_A (default
 * dist/main.js) and BUILD_B (default dist-prev/main.js: an earlier commit's dist/ copied into the
 * checkout, so that its imports resolve). Both servers run at once, each on a fresh PostgreSQL
 * database; rounds alternate bare, A, B (reversed every other round), and each run's CPU per
 * request is read from /proc once its clicks are written (1.5 s after it). Per build: the CPU
 * per request in each round, the medians of the instance's and PostgreSQL's share, and the
 * ratio to the bare server of the same round. Alternating in one run puts both builds under
 * the same minutes of a machine whose speed drifts (BENCHMARKS.md). BUILD_A_SQL / BUILD_B_SQL,
 * when set, run on that build's database once it is seeded (to measure a schema change, such as
 * an index dropped, against the same code).
 */
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { cpuPerRequest, cpuSnapshot } from './cpu.js';
import { median, wrk } from './redirect.js';
import { freePort, seed, startServer } from './server.js';

const BARE = `require('http').createServer((q,s)=>{s.writeHead(302,{location:'https://example.com/'});s.end()}).listen(PORT,'127.0.0.1')`;

interface Target {
  name: string;
  pid: number;
  url: string;
}

async function startBuild(admin: pg.Client, name: string, main: string): Promise<Target & { db: string; stop: () => Promise<void> }> {
  const db = `lt_builds_${name.toLowerCase()}_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${db}`);
  process.env.DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${db}`;
  process.env.BENCH_MAIN = main;
  const server = await startServer({ ALLOW_PRIVATE_DESTINATIONS: 'true' });
  const { link } = await seed(server.base);
  const change = process.env[`BUILD_${name}_SQL`];
  if (change) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(change);
    await client.end();
  }
  return { name: `${name} (${main})`, pid: server.child.pid!, url: `${server.base}${new URL(link.shortUrl).pathname}`, db, stop: server.stop };
}

export async function benchRedirectBuilds(
  rounds = Number(process.env.BUILDS_ROUNDS ?? 8),
  seconds = Number(process.env.BUILDS_SECONDS ?? 5),
): Promise<string[]> {
  const admin = new pg.Client({ connectionString: process.env.BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  process.env.REDIS_URL ??= 'redis://127.0.0.1:6379';
  const builds = [
    await startBuild(admin, 'A', process.env.BUILD_A ?? 'dist/main.js'),
    await startBuild(admin, 'B', process.env.BUILD_B ?? 'dist-prev/main.js'),
  ];
  const barePort = await freePort();
  const bare = spawn(process.execPath, ['-e', BARE.replace('PORT', String(barePort))], { stdio: 'ignore' });
  try {
    await new Promise((r) => setTimeout(r, 500));
    const targets: Target[] = [{ name: 'bare', pid: bare.pid!, url: `http://127.0.0.1:${barePort}/` }, ...builds];
    const cpu = new Map<string, Record<string, number>[]>(targets.map((t) => [t.name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const t of round % 2 ? [...targets].reverse() : targets) {
        await wrk(t.url, 2);
        const before = cpuSnapshot(t.pid);
        const run = await wrk(t.url, seconds);
        // The run's clicks are written within a second of it: their writing is part of its cost.
        await new Promise((r) => setTimeout(r, 1500));
        cpu.get(t.name)!.push(cpuPerRequest(before, cpuSnapshot(t.pid), run.requests));
      }
    }
    const bareTotals = cpu.get('bare')!.map((c) => c.total!);
    return targets.map((t) => {
      const runs = cpu.get(t.name)!;
      const ratios = runs.map((c, i) => c.total! / bareTotals[i]!);
      return (
        `${t.name}: CPU µs per request ${runs.map((c) => c.total!.toFixed(1)).join(' ')}; ` +
        `medians instance ${median(runs.map((c) => c.instance!)).toFixed(2)}, PostgreSQL ${median(runs.map((c) => c.postgres!)).toFixed(2)}; ` +
        `ratio to bare per round ${ratios.map((r) => r.toFixed(2)).join(' ')}, median ${median(ratios).toFixed(2)}`
      );
    });
  } finally {
    bare.kill();
    for (const b of builds) {
      await b.stop();
      await admin.query(`DROP DATABASE IF EXISTS ${b.db} WITH (FORCE)`);
    }
    await admin.end();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await benchRedirectBuilds()) console.log(line);
}
