import { kill } from 'node:process';
import { readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Backoff } from '../../infra/backoff.js';
import type { RawClick } from './record.js';
import { parseSpoolName, segmentName, type SpoolOwner } from './spool.js';
import { parseSpool } from './spool-format.js';

interface Log {
  warn(o: object, m: string): void;
  info(o: object, m: string): void;
}

export interface ReplayOptions {
  dir: string;
  /** This process, as its own spool names it. */
  owner: SpoolOwner;
  /** Writes clicks that may already be in the database (duplicates are skipped). */
  store: (clicks: RawClick[]) => Promise<void>;
  log: Log;
  /** How often the directory is searched for files of dead writers. */
  scanMs?: number;
  /** A writer on another host (shared volume) counts as dead after this long without a heartbeat. */
  staleMs?: number;
  batch?: number;
}

const pidAlive = (pid: number): boolean => {
  try {
    kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Whether the writer of a spool file may still be running (then its files are not ours). */
export function writerAlive(writer: SpoolOwner, me: SpoolOwner, heartbeatAgeMs: number | undefined, staleMs: number, isAlive = pidAlive): boolean {
  if (writer.host === me.host) {
    // A process restarted under the same pid (a container's pid 1) is not its predecessor.
    if (writer.pid === me.pid) return writer.boot === me.boot;
    if (!isAlive(writer.pid)) return false;
  }
  // Another host's writer, or a live pid that may have been reused: a fresh heartbeat decides.
  return heartbeatAgeMs !== undefined && heartbeatAgeMs < staleMs;
}

/**
 * Replays spool files into the database: this process's spilled segments, and at start and
 * every `scanMs` the files left by writers that died (claimed by renaming, so two instances do
 * not replay one file at once). Replays are idempotent — click ids are unique and duplicates
 * skipped — so a file replayed twice after a crash mid-replay adds nothing.
 */
export class SpoolReplayer {
  private readonly todo: string[] = [];
  private running: Promise<void> | undefined;
  private readonly backoff = new Backoff(500, 30_000);
  private readonly timer: NodeJS.Timeout;
  private claims = 0;
  private stopped = false;
  /** Clicks replayed since start. */
  replayed = 0;

  constructor(private readonly o: ReplayOptions) {
    this.timer = setInterval(() => void this.scan().catch((err) => o.log.warn({ err }, 'spool scan failed')), o.scanMs ?? 30_000);
    this.timer.unref();
  }

  /** A segment of this process to replay (clicks that were spilled to disk only). */
  add(path: string): void {
    this.todo.push(path);
    this.kick();
  }

  /** Claims the files of dead writers and replays everything pending; resolves when done or failing. */
  async scan(): Promise<void> {
    if (this.stopped) return;
    let names: string[];
    try {
      names = await readdir(this.o.dir);
    } catch {
      return;
    }
    const now = Date.now();
    const heartbeats = new Map<string, number>();
    for (const name of names) {
      const who = parseSpoolName(name);
      if (who?.kind !== 'heartbeat') continue;
      const age = await stat(join(this.o.dir, name)).then(
        (s) => now - s.mtimeMs,
        () => undefined,
      );
      if (age !== undefined) heartbeats.set(`${who.host}~${who.pid}~${who.boot}`, age);
    }
    const staleMs = this.o.staleMs ?? 60_000;
    const dead = new Set<string>();
    for (const name of names) {
      const who = parseSpoolName(name);
      if (!who) continue;
      const id = `${who.host}~${who.pid}~${who.boot}`;
      if (writerAlive(who, this.o.owner, heartbeats.get(id), staleMs)) continue;
      dead.add(id);
      if (who.kind === 'heartbeat') continue;
      // Renaming into our own name claims it; whoever loses the race finds the file gone.
      const mine = join(this.o.dir, segmentName(this.o.owner, 1_000_000 + this.claims++));
      try {
        await rename(join(this.o.dir, name), mine);
        this.todo.push(mine);
      } catch {
        /* claimed by another instance */
      }
    }
    for (const id of dead) await unlink(join(this.o.dir, `${id}.alive`)).catch(() => undefined);
    this.kick();
    await this.running;
  }

  private kick(): void {
    if (this.running || this.stopped || this.todo.length === 0) return;
    this.running = this.replayAll().finally(() => {
      this.running = undefined;
    });
  }

  private async replayAll(): Promise<void> {
    let files = 0;
    let clicks = 0;
    while (this.todo.length > 0 && !this.stopped) {
      if (!this.backoff.ready(Date.now())) {
        // Try again when the backoff allows (a timer, so close() is not held up by it).
        setTimeout(() => this.kick(), 250).unref();
        break;
      }
      const path = this.todo[0]!;
      try {
        clicks += await this.replayFile(path);
        files++;
        this.todo.shift();
        if (this.backoff.failing) this.o.log.info({ failedAttempts: this.backoff.failures }, 'spool replay working again');
        this.backoff.succeed();
      } catch (err) {
        const wait = this.backoff.fail(Date.now());
        if (this.backoff.failures === 1) this.o.log.warn({ err, file: path, retryInMs: wait }, 'spool replay failing; retrying with backoff');
      }
    }
    if (files > 0) this.o.log.info({ files, clicks }, 'clicks replayed from the spool');
  }

  private async replayFile(path: string): Promise<number> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
    const { clicks, skipped } = parseSpool(text);
    if (skipped > 0) this.o.log.warn({ file: path, skipped }, 'spool lines that are not whole clicks were skipped');
    const batch = this.o.batch ?? 5000;
    for (let i = 0; i < clicks.length; i += batch) await this.o.store(clicks.slice(i, i + batch));
    await unlink(path).catch(() => undefined);
    this.replayed += clicks.length;
    return clicks.length;
  }

  /** Stops scanning; a replay under way finishes its current batch. Files left wait for the next start. */
  async close(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}
