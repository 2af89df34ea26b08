/**
 * Redirect throughput: a bare node:http server answering a fixed 302 versus Linktrail's short
 * link (cache, decision, click queue), both under `wrk` on 127.0.0.1, one server process each.
 * Then the server is stopped with SIGTERM and the clicks in the database are counted: they
 * must equal the 302s wrk received.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { freePort, seed, startServer } from './server.js';

export interface WrkResult {
  requests: number;
  rps: number;
  p99ms: number;
  non3xx: number;
}

function ensureWrk(): void {
  if (spawnSync('wrk', ['--version']).error === undefined) return;
  console.log('installing wrk from Debian packages…');
  execFileSync('apt-get', ['install', '-y', '-q', 'wrk'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

function wrk(url: string, seconds: number, connections = 32): WrkResult {
  const out = execFileSync('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', url], { encoding: 'utf8' });
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
  const unit = (v: string, u: string) => Number(v) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[u]!;
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
  return {
    requests: num(/(\d+) requests in/),
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    p99ms: p99 ? unit(p99[1]!, p99[2]!) : NaN,
    non3xx: num(/Non-2xx or 3xx responses: (\d+)/) || 0,
  };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * This machine's throughput swings by ±20% from one run to the next (a shared virtual
 * machine), so the two servers are measured alternately, `rounds` times each, and the ratio is
 * the median of the rounds' ratios (each round's pair ran back to back).
 */
export async function benchRedirect(seconds = 8, rounds = Number(process.env.REDIRECT_ROUNDS ?? 3)): Promise<{ name: string; value: string }[]> {
  ensureWrk();
  // The ceiling: a bare node:http server answering a fixed 302, in its own process like Linktrail.
  const barePort = await freePort();
  const bareChild = spawn(
    process.execPath,
    ['-e', `require('http').createServer((q,s)=>{s.writeHead(302,{location:'https://example.com/'});s.end()}).listen(${barePort},'127.0.0.1')`],
    { stdio: 'ignore' },
  );
  // Linktrail, built, on PostgreSQL when DATABASE_URL is set (else PGlite on disk).
  const server = await startServer();
  const { link } = await seed(server.base);
  const bareUrl = `http://127.0.0.1:${barePort}/`;
  const shortUrl = `${server.base}${new URL(link.shortUrl).pathname}`;

  const bare: WrkResult[] = [];
  const ours: WrkResult[] = [];
  let served = 0;
  for (let round = 0; round < rounds; round++) {
    wrk(bareUrl, 2);
    bare.push(wrk(bareUrl, seconds));
    const warm = wrk(shortUrl, 2);
    const run = wrk(shortUrl, seconds);
    ours.push(run);
    served += warm.requests - warm.non3xx + run.requests - run.non3xx;
  }
  bareChild.kill('SIGTERM');
  await server.stop();

  let clicks = NaN;
  if (process.env.DATABASE_URL) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    clicks = Number((await client.query('SELECT count(*) FROM clicks WHERE link_id = $1', [link.id])).rows[0].count);
    await client.end();
  }
  // wrk stops counting at its deadline with requests still in flight, so the server's own
  // count of forwarded clicks is the exact number of 302s it answered.
  const closed = /"clicksAccepted":(\d+),"clicksWritten":(\d+)/.exec(server.log());
  const ratios = ours.map((r, i) => r.rps / bare[i]!.rps);
  const list = (xs: number[], digits = 0) => xs.map((x) => x.toFixed(digits)).join(' / ');
  return [
    { name: `bare node:http 302, req/s (${rounds} rounds)`, value: list(bare.map((r) => r.rps)) },
    { name: 'Linktrail redirect, req/s (same rounds)', value: list(ours.map((r) => r.rps)) },
    { name: 'Linktrail redirect p99 ms (same rounds)', value: list(ours.map((r) => r.p99ms), 2) },
    { name: 'ratio Linktrail / bare, per round', value: list(ratios, 2) },
    { name: 'ratio, median of rounds', value: median(ratios).toFixed(2) },
    { name: '302s counted by wrk (warm-ups + runs)', value: String(served) },
    { name: '302s answered by the server', value: closed?.[1] ?? '?' },
    { name: 'clicks written by the server', value: closed?.[2] ?? '?' },
    { name: 'clicks in database for the link', value: String(clicks) },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchRedirect());
}
