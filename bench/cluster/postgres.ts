/**
 * A PostgreSQL primary of the run's own (initdb, so nothing of the machine's server is copied or
 * touched) and a streaming replica of it (pg_basebackup -R -X stream), both with the server
 * binaries under /usr/lib/postgresql/<newest>/bin. PostgreSQL refuses to run as root, so as
 * root its programs run as the postgres user, in directories that user owns.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { Teardown } from './teardown.js';

const asRoot = process.getuid?.() === 0;

/** The newest installed server binaries, or undefined. */
export function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(root, v, 'bin')).find((bin) => ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'].every((p) => existsSync(join(bin, p))));
}

/** Why the clusters cannot be made here, or undefined. */
export function postgresUnavailable(): string | undefined {
  if (!postgresBinaries()) return 'no PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) under /usr/lib/postgresql/*/bin';
  if (asRoot && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root and there is no postgres user to run PostgreSQL as';
  return undefined;
}

function run(program: string, args: string[], timeoutMs = 120_000): void {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
  const done = spawnSync(cmd, argv, { encoding: 'utf8', timeout: timeoutMs });
  if (done.status !== 0)
    throw new Error(`${program} ${args.join(' ')} failed (${done.status ?? done.signal}): ${done.stderr || done.stdout || done.error?.message}`);
}

function shellRun(program: string, args: string[]): string {
  const line = [program, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return asRoot ? `runuser -u postgres -- ${line}` : line;
}

/** A directory the server's user owns. */
function ownedDir(path: string): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  if (asRoot) {
    const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout);
    chownSync(path, id('-u'), id('-g'));
  }
  return path;
}

export interface PgServer {
  port: number;
  data: string;
  log: string;
  /** The URL of `database` through `host`. */
  url(host: string, database?: string): string;
}

export async function pgQuery<T = Record<string, unknown>>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

function start(t: Teardown, bin: string, name: string, data: string, port: number, listen: string[], extra: string[]): PgServer {
  const log = join(t.dir, 'pg', `${name}.log`);
  const options = [`-p ${port}`, `-k ${data}`, `-c listen_addresses=${listen.join(',')}`, ...extra].join(' ');
  // Undone even if the start fails half-way: an immediate stop of whatever runs there.
  t.undo(shellRun(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-w', '-t', '20']));
  run(join(bin, 'pg_ctl'), ['start', '-D', data, '-l', log, '-w', '-t', '60', '-o', options]);
  return { port, data, log, url: (host, database = 'linktrail') => `postgres://postgres@${host}:${port}/${database}` };
}

const TUNING = ['-c fsync=off', '-c max_connections=200', '-c shared_buffers=128MB', '-c wal_level=replica', '-c max_wal_senders=5', '-c hot_standby=on'];

/** The primary: initdb, trust for 127.0.0.1 and `clients` (a CIDR), replication allowed from them. */
export async function startPrimary(t: Teardown, port: number, listen: string[], clients: string): Promise<PgServer> {
  const bin = postgresBinaries()!;
  const data = join(ownedDir(join(t.dir, 'pg')), 'primary');
  run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  const hba = [
    'local all all trust',
    'local replication all trust',
    'host all all 127.0.0.1/32 trust',
    'host replication all 127.0.0.1/32 trust',
    `host all all ${clients} trust`,
  ];
  writeFileSync(join(data, 'pg_hba.conf'), hba.join('\n') + '\n');
  const primary = start(t, bin, 'primary', data, port, listen, TUNING);
  await pgQuery(primary.url('127.0.0.1', 'postgres'), 'CREATE DATABASE linktrail');
  return primary;
}

/** A hot standby streaming from `primary` (its configuration and pg_hba come with the copy). */
export function startReplica(t: Teardown, primary: PgServer, port: number, listen: string[]): PgServer {
  const bin = postgresBinaries()!;
  const data = join(t.dir, 'pg', 'replica');
  run(join(bin, 'pg_basebackup'), ['-d', primary.url('127.0.0.1', 'postgres'), '-D', data, '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync']);
  return start(t, bin, 'replica', data, port, listen, TUNING);
}

/** The replica's lag: seconds since the last replayed transaction's commit, and bytes not yet replayed. */
export async function replicaLag(primary: PgServer, replica: PgServer): Promise<{ seconds: number; bytes: number }> {
  const [sent] = await pgQuery<{ lsn: string }>(primary.url('127.0.0.1'), 'SELECT pg_current_wal_lsn()::text AS lsn');
  const [row] = await pgQuery<{ seconds: number | null; bytes: string | null }>(
    replica.url('127.0.0.1'),
    `SELECT CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0 ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp()) END AS seconds,
            pg_wal_lsn_diff('${sent!.lsn}'::pg_lsn, pg_last_wal_replay_lsn())::text AS bytes`,
  );
  return { seconds: Number(row!.seconds ?? 0), bytes: Math.max(0, Number(row!.bytes ?? 0)) };
}
