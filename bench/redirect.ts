/**
 * Redirect throughput: a bare node:http server answering a fixed 302 versus Linktrail's short
 * link (cache, decision, click queue), both under `wrk` on 127.0.0.1, one server process each.
 * Then a link under an A/B test (§20) against the plain link, rounds alternating. Then the link
 * by an alias on a claimed host (operations.md §13) and by a chosen key on the short-link host
 * (§21) against its short URL, rounds alternating. Then the same rounds again once the link's workspace has an endpoint subscribed to
 * link.clicked (operations.md §11: the batch writer stores an event and a delivery per click),
 * pointing at a local receiver answering 204. Then the server is stopped with SIGTERM (its exit
 * timed, the deliveries left queued counted) and the clicks in the database are counted: they
 * must equal the 302s wrk received.
 */
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { cpuPerRequest, cpuSnapshot } from './cpu.js';
import { BENCH_ADMIN, freePort, rssOf, seed, startServer } from './server.js';

export interface WrkResult {
  requests: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  non3xx: number;
}

export function ensureWrk(): void {
  if (spawnSync('wrk', ['--version']).error === undefined) return;
  console.log('installing wrk from Debian packages…');
  execFileSync('apt-get', ['install', '-y', '-q', 'wrk'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

/** What Chrome sends when a visitor follows a link from another site (BENCH_HEADERS=browser). */
const BROWSER_HEADERS = [
  'Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7',
  'Accept-Encoding: gzip, deflate, br, zstd',
  'Accept-Language: en-US,en;q=0.9',
  'Referer: https://www.google.com/',
  'Sec-Ch-Ua: "Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
  'Sec-Ch-Ua-Mobile: ?0',
  'Sec-Ch-Ua-Platform: "Windows"',
  'Sec-Fetch-Dest: document',
  'Sec-Fetch-Mode: navigate',
  'Sec-Fetch-Site: cross-site',
  'Sec-Fetch-User: ?1',
  'Upgrade-Insecure-Requests: 1',
];
const BROWSER_AGENT = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/**
 * The headers wrk adds to every request, to both servers (wrk sends none of its own but Host):
 * BENCH_USER_AGENT a User-Agent (the spool and the click writer handle each click's agent);
 * BENCH_HEADERS=browser a browser's whole navigation, with that User-Agent or Chrome's.
 */
function requestHeaders(): string[] {
  const given = process.env.BENCH_USER_AGENT;
  if (process.env.BENCH_HEADERS === 'browser') return [`User-Agent: ${given ?? BROWSER_AGENT}`, ...BROWSER_HEADERS];
  if (process.env.BENCH_HEADERS) throw new Error(`BENCH_HEADERS: only "browser" is known (got "${process.env.BENCH_HEADERS}")`);
  return given ? [`User-Agent: ${given}`] : [];
}

/**
 * One wrk run (with a Lua `script` of wrk's when given). Asynchronous: a synchronous run froze this process, so the 204 receiver below
 * answered nothing under load, and keep-alive sockets the server had closed meanwhile were
 * reused afterwards ("other side closed").
 */
export async function wrk(url: string, seconds: number, host?: string, connections = 32, script?: string): Promise<WrkResult> {
  const agent = requestHeaders().flatMap((h) => ['-H', h]);
  const { stdout: out } = await promisify(execFile)(
    'wrk',
    ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', ...(host ? ['-H', `Host: ${host}`] : []), ...agent, ...(script ? ['-s', script] : []), url],
    { encoding: 'utf8' },
  );
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
  const unit = (v: string, u: string) => Number(v) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[u]!;
  const pct = (p: string) => {
    // A line of the latency distribution ("     50%  512.00us"), not the stats' "95.50%".
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out);
    return m ? unit(m[1]!, m[2]!) : NaN;
  };
  return {
    requests: num(/(\d+) requests in/),
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    p50ms: pct('50'),
    p99ms: pct('99'),
    non3xx: num(/Non-2xx or 3xx responses: (\d+)/) || 0,
  };
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * This machine's throughput swings by ±20% from one run to the next (a shared virtual
 * machine), so the two servers are measured alternately, `rounds` times each, and the ratio is
 * the median of the rounds' ratios (each round's pair ran back to back).
 */
/**
 * A receiver answering 204, and an endpoint of the workspace subscribed to link.clicked pointing
 * at it: through POST /api/webhooks when the server has it, else written into the database.
 */
async function subscribeClicks(base: string, headers: Record<string, string>, workspaceId: string) {
  let received = 0;
  const receiver = createServer((req, res) => {
    received++;
    req.resume();
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const made = await fetch(`${base}/api/webhooks`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: ['link.clicked'] }),
  });
  let via = 'POST /api/webhooks';
  if (made.status !== 201) {
    via = `SQL (POST /api/webhooks answered ${made.status})`;
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(
      `INSERT INTO webhook_endpoints (id, workspace_id, url, events, created_by, secret_sealed) VALUES ($1, $2, $3, '{link.clicked}', '{"type":"key","id":"bench"}', 'bench')`,
      [randomUUID(), workspaceId, url],
    );
    await client.end();
  }
  return { via, received: () => received, close: () => new Promise<void>((resolve) => receiver.close(() => resolve())) };
}

/**
 * An old short URL of the link on a claimed host (operations.md §13): the host claimed by the
 * workspace and verified by the operator, the link given the alias `https://<host>/spring`.
 */
async function aliasLink(base: string, headers: Record<string, string>, linkId: string): Promise<{ host: string; path: string }> {
  const host = 'brand.example';
  const json = { ...headers, 'content-type': 'application/json' };
  const claim = await fetch(`${base}/api/domains`, { method: 'POST', headers: json, body: JSON.stringify({ host }) });
  if (claim.status !== 201) throw new Error(`POST /api/domains answered ${claim.status}: ${await claim.text()}`);
  const { id } = (await claim.json()) as { id: string };
  const verified = await fetch(`${base}/admin/domains/${id}/verify`, { method: 'POST', headers: { authorization: `Bearer ${BENCH_ADMIN}` } });
  if (verified.status !== 200) throw new Error(`verify answered ${verified.status}: ${await verified.text()}`);
  const put = await fetch(`${base}/api/links`, { method: 'PUT', headers: json, body: JSON.stringify([{ id: linkId, aliases: [`https://${host}/spring`] }]) });
  if (put.status !== 200) throw new Error(`PUT /api/links answered ${put.status}: ${await put.text()}`);
  // Every instance learns an active host through the bus; give it a moment.
  await new Promise((r) => setTimeout(r, 1000));
  return { host, path: '/spring' };
}

/** A chosen key of the link on the short-link host (operations.md §21): its short id keeps redirecting. */
async function keyedLink(base: string, headers: Record<string, string>, linkId: string): Promise<string> {
  const key = 'spring-sale/2026';
  const json = { ...headers, 'content-type': 'application/json' };
  const put = await fetch(`${base}/api/links`, { method: 'PUT', headers: json, body: JSON.stringify([{ id: linkId, key }]) });
  if (put.status !== 200) throw new Error(`PUT /api/links (key) answered ${put.status}: ${await put.text()}`);
  return `/${key}`;
}

/**
 * A second link of the workspace under an A/B test (operations.md §20): two variants, 50/50,
 * ending in a day. wrk sends no cookie, so every request is split by the visitor hash (the
 * HMAC), the test's costliest path; its path under the short-link host.
 */
async function testedLink(base: string, headers: Record<string, string>, collectionId: string): Promise<{ id: string; path: string }> {
  const test = {
    variants: [
      { url: 'https://example.com/landing-a?a=1', weight: 50 },
      { url: 'https://example.com/landing-b?a=1', weight: 50 },
    ],
    endsAt: new Date(Date.now() + 86_400_000).toISOString(),
    metric: 'sales',
  };
  const made = await fetch(`${base}/api/links`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify([{ url: 'https://example.com/landing?a=1', collectionId, utm: { source: 'bench' }, test }]),
  });
  if (made.status !== 201) throw new Error(`POST /api/links (test) answered ${made.status}: ${await made.text()}`);
  const [link] = (await made.json()) as { id: string; shortUrl: string }[];
  return { id: link!.id, path: new URL(link!.shortUrl).pathname };
}

export async function benchRedirect(
  seconds = Number(process.env.REDIRECT_SECONDS ?? 8),
  rounds = Number(process.env.REDIRECT_ROUNDS ?? 5),
): Promise<{ name: string; value: string }[]> {
  ensureWrk();
  // The ceiling: a bare node:http server answering a fixed 302, in its own process like Linktrail.
  const barePort = await freePort();
  const bareChild = spawn(
    process.execPath,
    ['-e', `require('http').createServer((q,s)=>{s.writeHead(302,{location:'https://example.com/'});s.end()}).listen(${barePort},'127.0.0.1')`],
    { stdio: 'ignore' },
  );
  // Linktrail, built, on PostgreSQL when DATABASE_URL is set (else PGlite on disk).
  // The 204 receiver is on 127.0.0.1 over http: the operator's allowed range for in-house receivers.
  const server = await startServer({ ALLOW_PRIVATE_DESTINATIONS: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
  // Should anything below throw, neither server may outlive this process: an orphaned server
  // held the inherited stderr open, so a piped run never ended.
  const killServers = () => {
    bareChild.kill('SIGKILL');
    server.child.kill('SIGKILL');
  };
  process.once('exit', killServers);
  const { link, headers, workspaceId } = await seed(server.base);
  const bareUrl = `http://127.0.0.1:${barePort}/`;
  const shortUrl = `${server.base}${new URL(link.shortUrl).pathname}`;

  // RSS of the server process: idle once seeded, and the largest sample (every 200 ms) under load.
  const rssIdle = rssOf(server.child.pid!);
  let rssLoaded = rssIdle;
  const rssSampler = setInterval(() => (rssLoaded = Math.max(rssLoaded, rssOf(server.child.pid!))), 200);
  let served = 0;
  // The CPU time per request of every process involved (issue 48): the bare server's; Linktrail's instance, PostgreSQL and Redis.
  const cpuOf = async (pid: number, url: string) => {
    const before = cpuSnapshot(pid);
    const run = await wrk(url, seconds);
    return { run, cpu: cpuPerRequest(before, cpuSnapshot(pid), run.requests) };
  };
  const measure = async () => {
    const bare: WrkResult[] = [];
    const ours: WrkResult[] = [];
    const cpu = { bare: [] as number[], ours: [] as Record<string, number>[] };
    for (let round = 0; round < rounds; round++) {
      await wrk(bareUrl, 2);
      const b = await cpuOf(bareChild.pid!, bareUrl);
      bare.push(b.run);
      cpu.bare.push(b.cpu.instance!);
      const warm = await wrk(shortUrl, 2);
      const o = await cpuOf(server.child.pid!, shortUrl);
      ours.push(o.run);
      cpu.ours.push(o.cpu);
      served += warm.requests - warm.non3xx + o.run.requests - o.run.non3xx;
    }
    return { bare, ours, cpu };
  };
  const { bare, ours, cpu } = await measure();
  // REDIRECT_PHASES=cpu: only the phase above (issue 48's measure), then the stop and the count.
  const laterRounds = process.env.REDIRECT_PHASES === 'cpu' ? 0 : rounds;

  // A link under an A/B test against the plain link, rounds alternating (each round's pair back to back).
  const tested = await testedLink(server.base, headers, link.collectionId);
  const split = { plain: [] as WrkResult[], tested: [] as WrkResult[] };
  for (let round = 0; round < laterRounds; round++) {
    for (const [into, url] of [
      [split.plain, shortUrl],
      [split.tested, `${server.base}${tested.path}`],
    ] as const) {
      const warm = await wrk(url, 2);
      const run = await wrk(url, seconds);
      into.push(run);
      served += warm.requests - warm.non3xx + run.requests - run.non3xx;
    }
  }

  // The same link by its alias on a claimed host, rounds alternating with its short URL (both now
  // with a host active, so the short URL pays the one Host lookup too).
  const alias = await aliasLink(server.base, headers, link.id);
  const aliasUrl = `${server.base}${alias.path}`;
  const keyUrl = `${server.base}${await keyedLink(server.base, headers, link.id)}`;
  const claimed = { bare: [] as WrkResult[], short: [] as WrkResult[], alias: [] as WrkResult[], key: [] as WrkResult[] };
  for (let round = 0; round < laterRounds; round++) {
    await wrk(bareUrl, 2);
    claimed.bare.push(await wrk(bareUrl, seconds));
    for (const [into, url, host] of [
      [claimed.short, shortUrl, undefined],
      [claimed.alias, aliasUrl, alias.host],
      [claimed.key, keyUrl, undefined],
    ] as const) {
      const warm = await wrk(url, 2, host);
      const run = await wrk(url, seconds, host);
      into.push(run);
      served += warm.requests - warm.non3xx + run.requests - run.non3xx;
    }
  }
  // Every instance reads the subscriptions again within 5 s: wait that out before measuring.
  const hook = process.env.DATABASE_URL && laterRounds > 0 ? await subscribeClicks(server.base, headers, workspaceId) : undefined;
  let subscribed: Awaited<ReturnType<typeof measure>> | undefined;
  let delivery: { duringLoad: number; drainedSeconds: number; total: number; loadSeconds: number } | undefined;
  if (hook) {
    await new Promise((r) => setTimeout(r, 6000));
    const loadStarted = performance.now();
    subscribed = await measure();
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    // Then the deliveries still queued, sent with no redirect load: until the receiver's count
    // stops growing for 5 s, or for 60 s at most.
    const duringLoad = hook.received();
    const drainStarted = performance.now();
    let last = duringLoad;
    let still = performance.now();
    while (performance.now() - drainStarted < 60_000 && performance.now() - still < 5000) {
      await new Promise((r) => setTimeout(r, 500));
      if (hook.received() !== last) [last, still] = [hook.received(), performance.now()];
    }
    delivery = { duringLoad, drainedSeconds: (still - drainStarted) / 1000, total: last, loadSeconds };
  }
  clearInterval(rssSampler);
  bareChild.kill('SIGTERM');
  // The stop with the deliveries still queued (the receiver still answering): operations.md §1's prompt shutdown.
  const stopStarted = performance.now();
  await server.stop();
  const exit = { seconds: (performance.now() - stopStarted) / 1000, code: server.child.exitCode };
  process.off('exit', killServers);
  await hook?.close();

  let clicks = NaN;
  let events = NaN;
  let deliveries = NaN;
  let left = { pending: NaN, leased: NaN };
  if (process.env.DATABASE_URL) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    clicks = Number((await client.query('SELECT count(*) FROM clicks WHERE link_id = ANY($1::uuid[])', [[link.id, tested.id]])).rows[0].count);
    events = Number((await client.query(`SELECT count(*) FROM webhook_events WHERE type = 'link.clicked'`)).rows[0].count);
    deliveries = Number((await client.query('SELECT count(*) FROM webhook_deliveries')).rows[0].count);
    const pending = (
      await client.query(`SELECT count(*) AS pending, count(*) FILTER (WHERE locked_until > now()) AS leased FROM webhook_deliveries WHERE status = 'pending'`)
    ).rows[0];
    left = { pending: Number(pending.pending), leased: Number(pending.leased) };
    await client.end();
  }
  // wrk stops counting at its deadline with requests still in flight, so the server's own
  // count of forwarded clicks is the exact number of 302s it answered.
  const closed = /"clicksAccepted":(\d+),"clicksWritten":(\d+)/.exec(server.log());
  const ratios = ours.map((r, i) => r.rps / bare[i]!.rps);
  const list = (xs: number[], digits = 0) => xs.map((x) => x.toFixed(digits)).join(' / ');
  const withHook = subscribed
    ? (() => {
        const r = subscribed.ours.map((o, i) => o.rps / subscribed.bare[i]!.rps);
        // The subscribed phase's load on the server: its warm-ups and runs (its clicks were written meanwhile, the last at shutdown).
        const loadedSeconds = rounds * (2 + seconds);
        return [
          { name: 'with a link.clicked endpoint: bare 302, req/s', value: list(subscribed.bare.map((b) => b.rps)) },
          { name: 'with a link.clicked endpoint: Linktrail, req/s', value: list(subscribed.ours.map((o) => o.rps)) },
          {
            name: 'with a link.clicked endpoint: p99 ms',
            value: list(
              subscribed.ours.map((o) => o.p99ms),
              2,
            ),
          },
          { name: 'with a link.clicked endpoint: ratio, median of rounds', value: median(r).toFixed(2) },
          { name: 'endpoint made through', value: hook!.via },
          { name: 'link.clicked events stored', value: String(events) },
          { name: 'outbox rows (events + deliveries) per second loaded', value: ((events + deliveries) / loadedSeconds).toFixed(0) },
          { name: 'deliveries received by the 204 receiver, in all', value: String(hook!.received()) },
          { name: 'deliveries still pending after the stop (of them leased)', value: `${left.pending} (${left.leased})` },
          {
            name: 'deliveries/s while loaded; then the rest drained, deliveries/s',
            value: `${(delivery!.duringLoad / delivery!.loadSeconds).toFixed(0)} (${delivery!.duringLoad} in ${delivery!.loadSeconds.toFixed(0)} s); ${((delivery!.total - delivery!.duringLoad) / Math.max(delivery!.drainedSeconds, 0.001)).toFixed(0)} (${delivery!.total - delivery!.duringLoad} in ${delivery!.drainedSeconds.toFixed(1)} s)`,
          },
        ];
      })()
    : [];
  const splitRatios = split.tested.map((r, i) => r.rps / split.plain[i]!.rps);
  const splitRows = [
    { name: 'A/B test: plain link, req/s', value: list(split.plain.map((r) => r.rps)) },
    { name: 'A/B test: link under test (no cookie: hashed each time), req/s', value: list(split.tested.map((r) => r.rps)) },
    {
      name: 'A/B test: link under test p99 ms',
      value: list(
        split.tested.map((r) => r.p99ms),
        2,
      ),
    },
    { name: 'A/B test: ratio tested / plain, per round (median)', value: `${list(splitRatios, 2)} (${median(splitRatios).toFixed(2)})` },
    { name: 'A/B test: answers not 3xx', value: String(split.tested.reduce((n, r) => n + r.non3xx, 0)) },
  ];
  const claimedRatio = (xs: WrkResult[]) => median(xs.map((r, i) => r.rps / claimed.bare[i]!.rps)).toFixed(2);
  const aliasRows = [
    { name: 'host claimed: bare 302, req/s', value: list(claimed.bare.map((r) => r.rps)) },
    { name: 'host claimed: short URL, req/s (ratio)', value: `${list(claimed.short.map((r) => r.rps))} (${claimedRatio(claimed.short)})` },
    { name: `host claimed: alias on ${alias.host}, req/s (ratio)`, value: `${list(claimed.alias.map((r) => r.rps))} (${claimedRatio(claimed.alias)})` },
    {
      name: 'host claimed: alias p99 ms',
      value: list(
        claimed.alias.map((r) => r.p99ms),
        2,
      ),
    },
    { name: 'host claimed: alias answers not 3xx', value: String(claimed.alias.reduce((n, r) => n + r.non3xx, 0)) },
    { name: 'host claimed: chosen key on the short-link host, req/s (ratio)', value: `${list(claimed.key.map((r) => r.rps))} (${claimedRatio(claimed.key)})` },
    {
      name: 'host claimed: chosen key p99 ms',
      value: list(
        claimed.key.map((r) => r.p99ms),
        2,
      ),
    },
    { name: 'host claimed: chosen key answers not 3xx', value: String(claimed.key.reduce((n, r) => n + r.non3xx, 0)) },
  ];
  return [
    { name: `bare node:http 302, req/s (${rounds} rounds)`, value: list(bare.map((r) => r.rps)) },
    { name: 'Linktrail redirect, req/s (same rounds)', value: list(ours.map((r) => r.rps)) },
    {
      name: 'Linktrail redirect p99 ms (same rounds)',
      value: list(
        ours.map((r) => r.p99ms),
        2,
      ),
    },
    { name: 'ratio Linktrail / bare, per round', value: list(ratios, 2) },
    { name: 'ratio, median of rounds', value: median(ratios).toFixed(2) },
    { name: 'CPU µs per request: bare 302 (median of rounds)', value: median(cpu.bare).toFixed(1) },
    {
      name: 'CPU µs per request: Linktrail instance + PostgreSQL + Redis = all (medians)',
      value: ['instance', 'postgres', 'redis', 'total']
        .map((role) => median(cpu.ours.map((c) => c[role]!)).toFixed(1))
        .join(' + ')
        .replace(/ \+ (?=[^+]*$)/, ' = '),
    },
    {
      name: 'CPU per request Linktrail (all) / bare, median of rounds (goal ≤ 1.5)',
      value: median(cpu.ours.map((c, i) => c.total! / cpu.bare[i]!)).toFixed(2),
    },
    { name: '302s counted by wrk (warm-ups + runs)', value: String(served) },
    { name: '302s answered by the server', value: closed?.[1] ?? '?' },
    { name: 'clicks written by the server', value: closed?.[2] ?? '?' },
    { name: 'clicks in database for the two links', value: String(clicks) },
    { name: 'server RSS MB: idle (seeded) / largest under load', value: `${rssIdle} / ${rssLoaded}` },
    { name: 'exit after SIGTERM, s (exit code)', value: `${exit.seconds.toFixed(1)} (${exit.code})` },
    ...splitRows,
    ...aliasRows,
    ...withHook,
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchRedirect());
}
