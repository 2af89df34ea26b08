/**
 * `npm run cluster` (operations.md §17): PostgreSQL primary and streaming replica, Redis, three
 * instances each on its own address and HAProxy in front, all started here and stopped here.
 * Under redirect load (wrk) and API load (links, leads, sales) through HAProxy: one instance is
 * SIGKILLed and started again, then all three are restarted one after the other (a rolling
 * upgrade); then the figures. `--quick`: shorter phases (the CI test). Exit 0 when it ran,
 * 1 when something failed, 2 when the machine lacks what it needs (the reason printed).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { seed } from '../server.js';
import { startHaproxy, type Haproxy } from './haproxy.js';
import { startInstance, stopInstance, waitReady, type Instance, type Shared } from './instances.js';
import { startApiLoad, startWrk, wrkFor } from './load.js';
import { makeNetwork } from './network.js';
import { pgQuery, postgresUnavailable, replicaLag, startPrimary, startReplica, type PgServer } from './postgres.js';
import { redisUnavailable, startRedis } from './redis.js';
import { report, type Phase, type Run } from './report.js';
import { startTeardown } from './teardown.js';

const quick = process.argv.includes('--quick');
const STEADY_SECONDS = quick ? 3 : 10;

function missing(): string | undefined {
  for (const program of ['haproxy', 'wrk']) {
    if (spawnSync(program, ['-v']).error) return `${program} is not installed (apt-get install -y ${program})`;
  }
  return postgresUnavailable() ?? redisUnavailable();
}

/** A port free on every address (an instance on 127.0.0.2 cannot share a port bound on 0.0.0.0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '0.0.0.0', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
    s.once('error', reject);
  });
}

/** The clicks an instance's log says it replayed from its spool at start. */
function replayedFromSpool(log: string): number {
  return log
    .split('\n')
    .filter((line) => line.includes('clicks replayed from the spool'))
    .reduce((n, line) => n + Number(/"clicks":(\d+)/.exec(line)?.[1] ?? 0), 0);
}

/** The run's directory, for the logs' tails should the run fail. */
let runDir: string | undefined;

function logTails(): string {
  if (!runDir) return '';
  return readdirSync(runDir)
    .flatMap((f) => (f === 'pg' ? readdirSync(join(runDir!, 'pg')).map((g) => join('pg', g)) : [f]))
    .filter((f) => f.endsWith('.log'))
    .map((f) => `--- ${f}\n${readFileSync(join(runDir!, f), 'utf8').split('\n').slice(-15).join('\n')}`)
    .join('\n');
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls HAProxy until its checks give `name` the state `want` (bounded). */
async function untilStatus(haproxy: Haproxy, name: string, want: RegExp, withinMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + withinMs; Date.now() < deadline; await sleep(100)) {
    if (want.test(await haproxy.status(name))) return;
  }
  throw new Error(`HAProxy did not see ${name} ${want} within ${withinMs / 1000} s`);
}

async function main(): Promise<void> {
  const reason = missing();
  if (reason) {
    console.log(`cluster: cannot run here: ${reason}`);
    process.exit(2);
  }
  const t = startTeardown();
  runDir = t.dir;
  console.log(`cluster run in ${t.dir}${quick ? ' (quick)' : ''}`);
  const network = makeNetwork(t, 3);
  const [pgPort, replicaPort, redisPort, haproxyPort, instancePort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const primary = await startPrimary(t, pgPort, network.listen, network.clients);
  const replica = startReplica(t, primary, replicaPort, network.listen);
  await startRedis(t, redisPort, network.listen);
  const haproxyUrl = `http://127.0.0.1:${haproxyPort}`;
  const shared: Shared = {
    publicUrl: haproxyUrl,
    databaseUrl: (gw) => primary.url(gw),
    readUrl: (gw) => replica.url(gw),
    redisUrl: (gw) => `redis://${gw}:${redisPort}`,
  };
  const instances: Instance[] = network.places.map((place, i) => ({ name: `s${i + 1}`, place, port: instancePort }));
  // The first alone applies the migrations; then the other two.
  startInstance(t, instances[0]!, shared);
  await waitReady(instances[0]!);
  for (const instance of instances.slice(1)) startInstance(t, instance, shared);
  await Promise.all(instances.slice(1).map((i) => waitReady(i)));
  const haproxy = await startHaproxy(
    t,
    haproxyPort,
    instances.map((i) => ({ name: i.name, address: i.place.address, port: i.port })),
  );
  for (const i of instances) await untilStatus(haproxy, i.name, /^UP/);
  console.log(
    `up: PostgreSQL primary :${pgPort}, replica :${replicaPort}, Redis :${redisPort}, HAProxy ${haproxyUrl}, instances on ${network.kind} ${instances.map((i) => `${i.place.address}:${i.port}`).join(', ')}`,
  );

  const run = await drive(haproxy, instances, shared, primary, replica, t);
  console.log(await report(run));
}

async function drive(
  haproxy: Haproxy,
  instances: Instance[],
  shared: Shared,
  primary: PgServer,
  replica: PgServer,
  t: ReturnType<typeof startTeardown>,
): Promise<Run> {
  // Two links: one for the single-instance figure (straight to s1), one for the cluster.
  const { key, link: clusterLink, headers } = await seed(haproxy.url);
  const collectionId = (clusterLink as { collectionId: string }).collectionId;
  const created = await fetch(`${haproxy.url}/api/links`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify([{ url: 'https://example.com/single', collectionId }]),
  });
  if (!created.ok) throw new Error(`POST /api/links answered ${created.status}: ${await created.text()}`);
  const [singleLink] = (await created.json()) as { shortUrl: string }[];
  const clusterUrl = `${haproxy.url}${new URL(clusterLink.shortUrl).pathname}`;
  const clickIds: string[] = [];
  for (let i = 0; i < 30; i++) {
    const res = await fetch(clusterUrl, { redirect: 'manual' });
    clickIds.push(new URL(res.headers.get('location')!).searchParams.get('ltid')!);
  }
  await sleep(2000); // the clicks written (the queue flushes every second) before leads name them

  // The single-instance figure (as `npm run bench -- redirect` measures it: wrk -t1 -c32 straight
  // at one instance), then the cluster's through HAProxy with the same wrk, no API load yet.
  const undo = t.undo.bind(t);
  const singleUrl = `http://${instances[0]!.place.address}:${instances[0]!.port}${new URL(singleLink!.shortUrl).pathname}`;
  await wrkFor(singleUrl, 1, undo);
  const single = await wrkFor(singleUrl, STEADY_SECONDS, undo);
  await wrkFor(clusterUrl, 1, undo);
  const redirectsOnly = await wrkFor(clusterUrl, STEADY_SECONDS, undo);

  let phaseName = 'steady';
  const lag: Run['lag'] = [];
  const sampler = setInterval(
    () =>
      void replicaLag(primary, replica).then(
        (l) => lag.push({ phase: phaseName, ...l }),
        () => undefined,
      ),
    500,
  );
  const api = startApiLoad(haproxy.url, key, collectionId, clickIds);
  const phases: Phase[] = [];
  const phase = async (name: string, action: () => Promise<void>) => {
    phaseName = name;
    const from = performance.now();
    const wrk = startWrk(clusterUrl, 600, undo);
    await action();
    phases.push({ name, wrk: await wrk.stop(), from, to: performance.now() });
  };
  await phase('steady', () => sleep(STEADY_SECONDS * 1000));
  let killAt = 0;
  await phase('kill', async () => {
    await sleep(1000);
    const victim = instances[1]!;
    killAt = performance.now();
    await stopInstance(victim, 'SIGKILL');
    startInstance(t, victim, shared);
    await waitReady(victim);
    await untilStatus(haproxy, victim.name, /^UP/);
    await sleep(1000);
  });
  await phase('rolling restart', async () => {
    for (const instance of instances) {
      // Out of rotation first (new requests go elsewhere, those in flight finish), then SIGTERM.
      await haproxy.command(`set server reads/${instance.name} state maint`);
      await sleep(500);
      await stopInstance(instance, 'SIGTERM');
      startInstance(t, instance, shared);
      await waitReady(instance);
      await haproxy.command(`set server reads/${instance.name} state ready`);
      await untilStatus(haproxy, instance.name, /^UP/);
    }
    await sleep(1000);
  });
  const answers = await api.stop();
  clearInterval(sampler);
  const counters = await haproxy.counters();
  // SIGTERM flushes every queued click; then count what reached the database.
  await Promise.all(instances.map((i) => stopInstance(i, 'SIGTERM')));
  const replayed = instances.reduce((n, i) => n + replayedFromSpool(readFileSync(join(t.dir, `${i.name}.log`), 'utf8')), 0);
  const count = async (sql: string) => Number((await pgQuery<{ n: string }>(primary.url('127.0.0.1'), sql))[0]!.n);
  const clusterId = (clusterLink as { id: string }).id;
  const stored = {
    clicks: await count(`SELECT count(*) AS n FROM clicks WHERE link_id = '${clusterId}'`),
    leads: await count('SELECT count(*) AS n FROM lead_events'),
    sales: await count('SELECT count(*) AS n FROM sale_events'),
    links: await count(`SELECT count(*) AS n FROM links WHERE url LIKE 'https://example.com/cluster/%'`),
  };
  const endLag = await replicaLag(primary, replica);
  return { single, redirectsOnly, phases, answers, killAt, lag, endLag, haproxy: counters, stored, replayed };
}

try {
  await main();
  process.exit(0);
} catch (err) {
  console.error(`cluster: failed: ${(err as Error).stack ?? err}\n${logTails()}`);
  process.exit(1);
}
