/**
 * The redirect with a webhook backlog draining (issue 43): the built server on PostgreSQL, one
 * workspace with two endpoints subscribed to link.created — a live receiver answering 204 after a
 * few milliseconds, and a dead one (a port nothing listens on: every attempt is refused at once,
 * then retried on the schedule) — and ~30,000 links created through POST /api/links (bulks of
 * 10,000, as a bulk write or an import queues them: one event per link, one delivery per
 * endpoint). Then wrk on the short link, rounds alternating: idle (both endpoints paused, nothing
 * due) and with the backlog draining. Reported: redirect p50/p99 and req/s per round, the ratios
 * backlog / idle (median of the rounds), deliveries/s meanwhile, and the drain with no load.
 *
 * Paused means `disabled` set in the database by the bench (two rows; the claim skips a disabled
 * endpoint). The worker's housekeeping fails the pending deliveries of disabled endpoints, but it
 * runs 30 s after the start and then every 10 minutes: the first pause waits until that run is
 * behind it, and the whole scenario takes well under 10 minutes.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { ensureWrk, median, wrk, type WrkResult } from './redirect.js';
import { freePort, seed, startServer } from './server.js';

const BULK = 10_000;
/** The worker's first housekeeping run (delivery.ts HOUSEKEEPING_FIRST_MS) plus a margin. */
const HOUSEKEEPING_DONE_MS = 35_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU time (user + system) a process has used, in ms, from /proc (clock ticks of 10 ms); 0 once it is gone. */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

export async function benchWebhookBacklog(
  seconds = Number(process.env.BACKLOG_SECONDS ?? 4),
  rounds = Number(process.env.BACKLOG_ROUNDS ?? 4),
  links = Number(process.env.BACKLOG_LINKS ?? 30_000),
  connections = Number(process.env.BACKLOG_CONNECTIONS ?? 32),
  receiverDelayMs = Number(process.env.BACKLOG_RECEIVER_DELAY_MS ?? 2),
): Promise<{ name: string; value: string }[]> {
  ensureWrk();
  const loadBefore = load();
  const server = await startServer({ ALLOW_PRIVATE_DESTINATIONS: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
  const started = performance.now();
  const kill = () => server.child.kill('SIGKILL');
  process.once('exit', kill);
  const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  let received = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => res.writeHead(204).end(), receiverDelayMs));
    received++;
  });
  try {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { link, headers } = await seed(server.base);
    const json = { ...headers, 'content-type': 'application/json' };
    const subscribe = async (url: string): Promise<string> => {
      const made = await fetch(`${server.base}/api/webhooks`, { method: 'POST', headers: json, body: JSON.stringify({ url, events: ['link.created'] }) });
      if (made.status !== 201) throw new Error(`POST /api/webhooks answered ${made.status}: ${await made.text()}`);
      return ((await made.json()) as { id: string }).id;
    };
    const liveId = await subscribe(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
    // A free port nobody listens on: connection refused.
    const deadId = await subscribe(`http://127.0.0.1:${await freePort()}/hook`);
    const endpoints = [liveId, deadId];

    let made = 0;
    const createLinks = async (n: number) => {
      for (let done = 0; done < n; done += BULK) {
        const items = Array.from({ length: Math.min(BULK, n - done) }, () => ({ url: `https://example.com/p/${made++}`, collectionId: link.collectionId }));
        const res = await fetch(`${server.base}/api/links`, { method: 'POST', headers: json, body: JSON.stringify(items) });
        if (res.status >= 300) throw new Error(`POST /api/links answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        await res.arrayBuffer();
      }
    };
    const queueStarted = performance.now();
    await createLinks(links);
    const queueSeconds = (performance.now() - queueStarted) / 1000;

    const state = async () => {
      const { rows } = await db.query<{ endpoint_id: string; pending: string; attempts: string }>(
        `SELECT endpoint_id, count(*) FILTER (WHERE status = 'pending') AS pending, coalesce(sum(attempts), 0) AS attempts
         FROM webhook_deliveries WHERE endpoint_id = ANY ($1::uuid[]) GROUP BY endpoint_id`,
        [endpoints],
      );
      const of = (id: string) => rows.find((r) => r.endpoint_id === id);
      return {
        at: performance.now(),
        received,
        livePending: Number(of(liveId)?.pending ?? 0),
        deadPending: Number(of(deadId)?.pending ?? 0),
        deadAttempts: Number(of(deadId)?.attempts ?? 0),
      };
    };
    const afterQueue = await state();
    const pause = async (paused: boolean) => {
      await db.query('UPDATE webhook_endpoints SET disabled = $2 WHERE id = ANY ($1::uuid[])', [endpoints, paused]);
      if (!paused) return;
      // The attempts under way finish (a refused one at once, a live one after the receiver's delay).
      for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(100)) {
        const { rows } = await db.query(
          `SELECT 1 FROM webhook_deliveries WHERE endpoint_id = ANY ($1::uuid[]) AND status = 'pending' AND locked_until > now() LIMIT 1`,
          [endpoints],
        );
        if (rows.length === 0) break;
      }
    };
    const wait = HOUSEKEEPING_DONE_MS - (performance.now() - started);
    if (wait > 0) await sleep(wait);

    const shortUrl = `${server.base}${new URL(link.shortUrl).pathname}`;
    const idle: WrkResult[] = [];
    const busy: WrkResult[] = [];
    const rates: { live: number; dead: number; pendingAtStart: number; pendingAtEnd: number }[] = [];
    let toppedUp = 0;
    for (let round = 0; round < rounds; round++) {
      await pause(true);
      await wrk(shortUrl, 1, undefined, connections);
      idle.push(await wrk(shortUrl, seconds, undefined, connections));
      await pause(false);
      // Keep the backlog near its size: a fast drain would otherwise measure a short queue.
      if ((await state()).livePending < links / 2) {
        await createLinks(BULK);
        toppedUp += BULK;
      }
      // The worker polls every second when it found nothing: the warm-up covers it.
      await wrk(shortUrl, 1, undefined, connections);
      const before = await state();
      busy.push(await wrk(shortUrl, seconds, undefined, connections));
      const after = await state();
      const s = (after.at - before.at) / 1000;
      rates.push({
        live: (after.received - before.received) / s,
        dead: (after.deadAttempts - before.deadAttempts) / s,
        pendingAtStart: before.livePending,
        pendingAtEnd: after.livePending,
      });
    }

    // CPU of the server process and of the database's backends (its pool's connections): paused
    // for 5 s, then draining for 10 s, with no redirect load. Other processes' load does not
    // count here, unlike in the latencies above.
    const backends = async () =>
      (await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')).rows.map(
        (r) => r.pid,
      );
    const cpu = async () => ({ server: cpuMs(server.child.pid!), pg: new Map((await backends()).map((pid) => [pid, cpuMs(pid)])), at: performance.now() });
    const share = async (ms: number) => {
      const a = await cpu();
      const s0 = await state();
      await sleep(ms);
      const s1 = await state();
      const b = await cpu();
      // A backend that closed meanwhile took its CPU time with it: those alive at both ends count.
      let pg = 0;
      for (const [pid, used] of b.pg) if (a.pg.has(pid)) pg += used - a.pg.get(pid)!;
      const wall = b.at - a.at;
      return { server: (b.server - a.server) / wall, pg: pg / wall, s0, s1, seconds: (s1.at - s0.at) / 1000 };
    };
    await pause(true);
    const paused = await share(5000);
    await pause(false);
    await sleep(1500);
    const draining = await share(10_000);
    const drainStart = draining.s0;
    const drainEnd = draining.s1;
    const drainS = draining.seconds;
    const loadAfter = load();
    await server.stop();
    process.off('exit', kill);

    const list = (xs: number[], digits = 0) => xs.map((x) => x.toFixed(digits)).join(' / ');
    const ratio = (pick: (r: WrkResult) => number) => idle.map((r, i) => pick(busy[i]!) / pick(r));
    return [
      { name: 'load average (1 5 15 min): before / after', value: `${loadBefore} / ${loadAfter}` },
      {
        name: 'backlog queued through',
        value: `POST /api/links, ${links} links in bulks of ${BULK} (link.created to both endpoints), ${queueSeconds.toFixed(1)} s; +${toppedUp} between rounds`,
      },
      { name: 'pending after queueing: live / dead endpoint', value: `${afterQueue.livePending} / ${afterQueue.deadPending}` },
      {
        name: `wrk: ${connections} connections, ${seconds} s a round, ${rounds} rounds`,
        value: `receiver answers 204 after ${receiverDelayMs} ms; dead: connection refused`,
      },
      { name: 'idle: redirect req/s', value: list(idle.map((r) => r.rps)) },
      {
        name: 'idle: p50 ms',
        value: list(
          idle.map((r) => r.p50ms),
          2,
        ),
      },
      {
        name: 'idle: p99 ms',
        value: list(
          idle.map((r) => r.p99ms),
          2,
        ),
      },
      { name: 'backlog: redirect req/s', value: list(busy.map((r) => r.rps)) },
      {
        name: 'backlog: p50 ms',
        value: list(
          busy.map((r) => r.p50ms),
          2,
        ),
      },
      {
        name: 'backlog: p99 ms',
        value: list(
          busy.map((r) => r.p99ms),
          2,
        ),
      },
      {
        name: 'ratio backlog / idle: p99 per round (median)',
        value: `${list(
          ratio((r) => r.p99ms),
          2,
        )} (${median(ratio((r) => r.p99ms)).toFixed(2)})`,
      },
      {
        name: 'ratio backlog / idle: p50 per round (median)',
        value: `${list(
          ratio((r) => r.p50ms),
          2,
        )} (${median(ratio((r) => r.p50ms)).toFixed(2)})`,
      },
      {
        name: 'ratio backlog / idle: req/s per round (median)',
        value: `${list(
          ratio((r) => r.rps),
          2,
        )} (${median(ratio((r) => r.rps)).toFixed(2)})`,
      },
      { name: 'under load: deliveries/s to the live receiver', value: list(rates.map((r) => r.live)) },
      { name: 'under load: attempts/s to the dead endpoint', value: list(rates.map((r) => r.dead)) },
      { name: 'under load: live pending at round start → end', value: rates.map((r) => `${r.pendingAtStart}→${r.pendingAtEnd}`).join(' / ') },
      {
        name: 'no load, 10 s: deliveries/s live; attempts/s dead',
        value: `${((drainEnd.received - drainStart.received) / drainS).toFixed(0)}; ${((drainEnd.deadAttempts - drainStart.deadAttempts) / drainS).toFixed(0)}`,
      },
      {
        name: 'no load: CPU, % of a core: server / PG backends (paused → draining)',
        value: `${(paused.server * 100).toFixed(1)} / ${(paused.pg * 100).toFixed(1)} → ${(draining.server * 100).toFixed(1)} / ${(draining.pg * 100).toFixed(1)}`,
      },
      {
        name: 'no load: CPU ms per attempt (live + dead), server / PG',
        value: (() => {
          const n = (drainEnd.received - drainStart.received + drainEnd.deadAttempts - drainStart.deadAttempts) / drainS;
          return `${(((draining.server - paused.server) * 1000) / n).toFixed(2)} / ${(((draining.pg - paused.pg) * 1000) / n).toFixed(2)}`;
        })(),
      },
      { name: 'left pending: live / dead', value: `${drainEnd.livePending} / ${drainEnd.deadPending}` },
    ];
  } finally {
    kill();
    await db.end();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchWebhookBacklog());
}
