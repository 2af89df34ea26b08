/**
 * A real streaming replica of the DATABASE_URL server, for the DATABASE_READ_URL tests:
 * `pg_basebackup -R -X stream` of the primary into a temporary directory, started with pg_ctl
 * on a free port of 127.0.0.1. PostgreSQL refuses to run as root, so as root the binaries run
 * as the postgres user (runuser) in a directory it owns.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './process.js';

/** Settings a hot standby must have at least as high as its primary, or it refuses to start. */
const AT_LEAST_PRIMARY = ['max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction'];

export interface Replica {
  /** The URL of `database` on the replica. */
  url(database: string): string;
  /** One statement on the replica's `database`, on a short-lived connection. */
  query<T = Record<string, unknown>>(database: string, text: string): Promise<T[]>;
  /** Waits until the replica has replayed everything the primary has written so far. */
  caughtUp(database: string, ms: number): Promise<void>;
  /** Stops the server (fast shutdown); nothing if it is not running. */
  stop(): void;
  /** Stops the server and deletes its directory. */
  remove(): void;
  /** The server's log, for failure messages. */
  log(): string;
}

export async function query<T = Record<string, unknown>>(url: string, text: string, replication = false): Promise<T[]> {
  // `replication` is a startup parameter pg passes on (not in its types): a physical replication connection.
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000, ...(replication ? { replication: 'true' } : {}) } as pg.ClientConfig);
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL program (as the postgres user when we are root); throws with its output if it fails. */
function run(program: string, args: string[], timeoutMs = 60_000): void {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
  const done = spawnSync(cmd, argv, { encoding: 'utf8', timeout: timeoutMs });
  if (done.status !== 0)
    throw new Error(`${program} ${args.join(' ')} failed (${done.status ?? done.signal}): ${done.stderr || done.stdout || done.error?.message}`);
}

/** The directory of the server binaries matching the primary's major version. */
async function binariesOf(primaryUrl: string): Promise<string> {
  const [row] = await query<{ server_version_num: string }>(primaryUrl, 'SHOW server_version_num');
  return `/usr/lib/postgresql/${Math.floor(Number(row!.server_version_num) / 10000)}/bin`;
}

/**
 * Why a replica of the primary cannot be made on this machine (the tests skip with it), or
 * undefined when it can: the server binaries, a postgres user when we are root, wal_level,
 * WAL senders, and a replication connection allowed by pg_hba.conf.
 */
export async function replicaUnavailable(primaryUrl: string): Promise<string | undefined> {
  const bin = await binariesOf(primaryUrl);
  const missing = ['pg_basebackup', 'pg_ctl', 'postgres'].filter((p) => !existsSync(join(bin, p)));
  if (missing.length) return `the PostgreSQL server programs ${missing.join(', ')} are not in ${bin}`;
  if (asRoot && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root and there is no postgres user to run the replica as';
  const [wal] = await query<{ wal_level: string }>(primaryUrl, 'SHOW wal_level');
  if (wal!.wal_level === 'minimal') return 'the primary has wal_level = minimal (needs replica)';
  const [senders] = await query<{ max_wal_senders: string }>(primaryUrl, 'SHOW max_wal_senders');
  if (Number(senders!.max_wal_senders) < 2) return `the primary has max_wal_senders = ${senders!.max_wal_senders} (pg_basebackup -X stream needs 2)`;
  try {
    await query(primaryUrl, 'IDENTIFY_SYSTEM', true);
  } catch (err) {
    const host = new URL(primaryUrl).hostname.replace(/^localhost$/, '127.0.0.1');
    return `the primary refuses a replication connection (${(err as Error).message}); its pg_hba.conf needs "host replication all ${host}/32 trust" and a reload`;
  }
  return undefined;
}

/** Copies the primary with pg_basebackup and starts the copy as a hot standby streaming from it. */
export async function startReplica(primaryUrl: string): Promise<Replica> {
  const bin = await binariesOf(primaryUrl);
  const settings = await query<{ name: string; setting: string }>(
    primaryUrl,
    `SELECT name, setting FROM pg_settings WHERE name IN (${AT_LEAST_PRIMARY.map((n) => `'${n}'`).join(', ')})`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'lt-replica-'));
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  if (asRoot) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout);
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout);
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const port = await freePort();
  let started = false;
  const replica: Replica = {
    url(database) {
      return `postgres://${encodeURIComponent(new URL(primaryUrl).username || 'postgres')}@127.0.0.1:${port}/${database}`;
    },
    query: (database, text) => query(replica.url(database), text),
    async caughtUp(database, ms) {
      const [{ lsn }] = (await query<{ lsn: string }>(primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn')) as [{ lsn: string }];
      const deadline = Date.now() + ms;
      for (;;) {
        const [row] = await replica.query<{ behind: boolean }>(database, `SELECT coalesce(pg_last_wal_replay_lsn() < '${lsn}'::pg_lsn, true) AS behind`);
        if (!row!.behind) return;
        if (Date.now() > deadline) throw new Error(`the replica has not replayed up to ${lsn} within ${ms} ms\n${replica.log()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    stop() {
      if (!started) return;
      started = false;
      run(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'fast', '-w', '-t', '30']);
    },
    remove() {
      try {
        replica.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-4000) : '(no log)'),
  };
  try {
    // A fast checkpoint: the default spread one can take minutes. -R writes standby.signal and primary_conninfo.
    run(join(bin, 'pg_basebackup'), ['-d', primaryUrl, '-D', data, '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync']);
    // Debian keeps the configuration outside the data directory, so the copy has none: the
    // standby gets its own (trust on the loopback and its own socket directory, like the primary here).
    if (!existsSync(join(data, 'postgresql.conf'))) writeFileSync(join(data, 'postgresql.conf'), '');
    writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    writeFileSync(join(data, 'pg_ident.conf'), '');
    const options = [
      `-p ${port}`,
      `-k ${dir}`,
      '-c listen_addresses=127.0.0.1',
      `-c hba_file=${join(data, 'pg_hba.conf')}`,
      `-c ident_file=${join(data, 'pg_ident.conf')}`,
      '-c hot_standby=on',
      '-c fsync=off',
      ...settings.map((s) => `-c ${s.name}=${s.setting}`),
    ];
    const owner = statSync(data);
    for (const f of ['postgresql.conf', 'pg_hba.conf', 'pg_ident.conf']) chownSync(join(data, f), owner.uid, owner.gid);
    run(join(bin, 'pg_ctl'), ['start', '-D', data, '-l', logFile, '-w', '-t', '30', '-o', options.join(' ')]);
    started = true;
    return replica;
  } catch (err) {
    const log = replica.log();
    replica.remove();
    throw new Error(`${(err as Error).message}\n${log}`);
  }
}
