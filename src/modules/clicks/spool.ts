import { close, closeSync, fdatasync, fdatasyncSync, mkdirSync, openSync, unlink, unlinkSync, utimes, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { RawClick } from './record.js';
import { SPOOL_HEADER, SpoolEncoder } from './spool-format.js';

export interface SpoolOptions {
  dir: string;
  /** fdatasync interval; 0 syncs every append before its visitors are answered. */
  syncMs: number;
  /** A segment is closed after this many clicks or this age, so committed ones go soon. */
  segmentClicks?: number;
  segmentMs?: number;
}

interface Log {
  warn(o: object, m: string): void;
  info(o: object, m: string): void;
}

interface Segment {
  path: string;
  fd: number;
  clicks: number;
  openedAt: number;
  /** Queue sequence number just past this segment's last in-memory click (0: none). */
  endSeq: number;
  /** Holds clicks that are on disk only (the memory queue was full): replayed, not deleted. */
  spilled: boolean;
  bytes: number;
  /** Writes this file's lines: its links and agents are defined once in it (spool-format.ts). */
  encoder: SpoolEncoder;
}

/** Who wrote a spool file: host, process and an id for this start of it. */
export interface SpoolOwner {
  host: string;
  pid: number;
  boot: string;
}

const SUFFIX = '.clicks';

/** `host~pid~boot~n.clicks`: enough for any instance to tell whether the writer is still alive. */
export function segmentName(o: SpoolOwner, n: number): string {
  return `${o.host}~${o.pid}~${o.boot}~${n}${SUFFIX}`;
}

export function heartbeatName(o: SpoolOwner): string {
  return `${o.host}~${o.pid}~${o.boot}.alive`;
}

export function parseSpoolName(name: string): (SpoolOwner & { kind: 'segment' | 'heartbeat' }) | undefined {
  const m = /^([^~]+)~(\d+)~([0-9a-f]+)(?:~(\d+)\.clicks|\.alive)$/.exec(name);
  if (!m) return undefined;
  return { host: m[1]!, pid: Number(m[2]), boot: m[3]!, kind: m[4] === undefined ? 'heartbeat' : 'segment' };
}

/** A host name safe in a file name. */
const safeHost = () =>
  hostname()
    .replace(/[^A-Za-z0-9.-]/g, '_')
    .slice(0, 64) || 'host';

/**
 * The click spool of one process: an append-only file under DATA_DIR that every recorded click
 * reaches before its visitor is answered. Clicks of one event-loop turn go out in one write at
 * the end of the turn, and their answers right after it, so a process killed at any moment
 * has every answered click on disk (in the page cache; fdatasync runs in the background every
 * `syncMs`, or before answering with 0). A segment is deleted once the database holds all its
 * clicks; what is left after a crash is replayed by the next instance on this DATA_DIR.
 */
export class ClickSpool {
  readonly owner: SpoolOwner = { host: safeHost(), pid: process.pid, boot: randomBytes(4).toString('hex') };
  private current: Segment | undefined;
  private closed: Segment[] = [];
  private next = 0;
  private pending: (() => void)[] = [];
  /**
   * The clicks of `pending`, encoded when written: by then the file they go to is known, and
   * with it what it has defined. When spilled, they are handed back if their write fails.
   */
  private pendingClicks: RawClick[] = [];
  private pendingSpilled = false;
  private scheduled = false;
  private dirty = false;
  private syncing = false;
  private failing = false;
  private readonly syncTimer: NodeJS.Timeout | undefined;
  private readonly heartbeatTimer: NodeJS.Timeout;
  private readonly heartbeat: string;
  private committedSeq = 0;
  private shut = false;
  /** Bytes in segments not yet deleted. */
  bytes = 0;

  constructor(
    private readonly o: SpoolOptions,
    private readonly log: Log,
    /** Receives each closed segment whose clicks are on disk only, to be replayed. */
    private readonly onSpilled: (path: string) => void,
    /** Takes back spilled clicks whose write failed, so they stay in memory instead. */
    private readonly rescue: (clicks: RawClick[]) => void,
  ) {
    mkdirSync(o.dir, { recursive: true });
    this.heartbeat = join(o.dir, heartbeatName(this.owner));
    writeFileSync(this.heartbeat, `${new Date().toISOString()}\n`);
    // Other instances judge a writer on another host (a shared volume) by this file's age.
    this.heartbeatTimer = setInterval(() => {
      const now = new Date();
      utimes(this.heartbeat, now, now, () => undefined);
      this.rotateIfDue();
    }, 1000);
    this.heartbeatTimer.unref();
    if (o.syncMs > 0) {
      this.syncTimer = setInterval(() => this.syncInBackground(), o.syncMs);
      this.syncTimer.unref();
    }
  }

  /**
   * Appends a click; `done` runs once it is written (at the end of this event-loop turn).
   * `endSeq` is the memory queue's sequence just past it, 0 when it is spilled (disk only).
   */
  append(click: RawClick, endSeq: number, done: () => void): void {
    const spilled = endSeq === 0;
    // A segment holds either queued clicks or spilled ones, never both.
    if (this.pending.length > 0 && spilled !== this.pendingSpilled) this.writeOut();
    this.pendingSpilled = spilled;
    this.pending.push(done);
    this.pendingClicks.push(click);
    if (!spilled) this.pendingEndSeq = endSeq;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.writeOut);
    }
  }

  private pendingEndSeq = 0;

  /** Whether the spool can take clicks (false after a write failed, until a new segment opens). */
  get healthy(): boolean {
    return !this.failing && !this.shut;
  }

  private readonly writeOut = (): void => {
    this.scheduled = false;
    const pending = this.pending;
    const clicks = this.pendingClicks;
    if (pending.length === 0) return;
    this.pending = [];
    this.pendingClicks = [];
    try {
      const seg = this.segmentFor(this.pendingSpilled);
      for (const click of clicks) seg.encoder.add(click);
      const bytes = writeSync(seg.fd, seg.encoder.take());
      if (this.o.syncMs === 0) fdatasyncSync(seg.fd);
      else this.dirty = true;
      seg.bytes += bytes;
      this.bytes += bytes;
      seg.clicks += pending.length;
      if (!seg.spilled) seg.endSeq = this.pendingEndSeq;
      if (this.failing) {
        this.failing = false;
        this.log.info({ dir: this.o.dir }, 'click spool writable again');
      }
      if (seg.clicks >= (this.o.segmentClicks ?? 20_000)) this.rotate();
    } catch (err) {
      // A full or failing disk must not stop redirects: the clicks are still in the memory
      // queue (spilled ones wait there instead); durability is lost until writes work again.
      if (!this.failing) this.log.warn({ err, dir: this.o.dir }, 'click spool not writable; clicks kept in memory only');
      this.failing = true;
      this.abandonCurrent();
      if (this.pendingSpilled) this.rescue(clicks);
    }
    for (const done of pending) {
      try {
        done();
      } catch (err) {
        // One visitor's failed answer must not keep the others of this turn from theirs.
        this.log.warn({ err }, 'answering a redirect failed');
      }
    }
  };

  private segmentFor(spilled: boolean): Segment {
    if (this.current && this.current.spilled !== spilled) this.rotate();
    if (!this.current) {
      const path = join(this.o.dir, segmentName(this.owner, this.next++));
      const fd = openSync(path, 'a');
      writeSync(fd, SPOOL_HEADER);
      this.current = { path, fd, clicks: 0, openedAt: Date.now(), endSeq: 0, spilled, bytes: SPOOL_HEADER.length, encoder: new SpoolEncoder() };
      this.bytes += SPOOL_HEADER.length;
    }
    return this.current;
  }

  private abandonCurrent(): void {
    const seg = this.current;
    this.current = undefined;
    if (!seg) return;
    try {
      closeSync(seg.fd);
    } catch {
      /* already unusable */
    }
    seg.fd = -1;
    this.closed.push(seg);
  }

  /** Closes the current segment (synced in the background); a new one opens on the next click. */
  private rotate(): void {
    const seg = this.current;
    if (!seg) return;
    this.current = undefined;
    const fd = seg.fd;
    seg.fd = -1;
    fdatasync(fd, () => close(fd, () => this.settle(seg)));
    this.closed.push(seg);
  }

  private settle(seg: Segment): void {
    if (seg.spilled && seg.clicks > 0) {
      this.closed = this.closed.filter((s) => s !== seg);
      this.bytes -= seg.bytes;
      this.onSpilled(seg.path);
      return;
    }
    this.collect();
  }

  private rotateIfDue(): void {
    const seg = this.current;
    if (seg && seg.clicks > 0 && Date.now() - seg.openedAt >= (this.o.segmentMs ?? 2000)) this.rotate();
  }

  /** The memory queue has written every click before `seq` to the database. */
  committed(seq: number): void {
    this.committedSeq = seq;
    this.collect();
  }

  /** Deletes closed segments whose clicks are all in the database. */
  private collect(): void {
    const keep: Segment[] = [];
    for (const seg of this.closed) {
      if (seg.fd === -1 && !seg.spilled && seg.endSeq <= this.committedSeq) {
        this.bytes -= seg.bytes;
        unlink(seg.path, () => undefined);
      } else keep.push(seg);
    }
    this.closed = keep;
  }

  private syncInBackground(): void {
    const seg = this.current;
    if (!this.dirty || this.syncing || !seg) return;
    this.dirty = false;
    this.syncing = true;
    fdatasync(seg.fd, () => (this.syncing = false));
  }

  /**
   * Writes what is pending and syncs every open segment; segments whose clicks are not all in
   * the database stay on disk for the next start to replay. Returns the clicks kept.
   */
  close(): number {
    if (this.shut) return 0;
    this.writeOut();
    this.shut = true;
    clearInterval(this.heartbeatTimer);
    if (this.syncTimer) clearInterval(this.syncTimer);
    const seg = this.current;
    this.current = undefined;
    if (seg) {
      try {
        fdatasyncSync(seg.fd);
        closeSync(seg.fd);
      } catch {
        /* nothing more can be done for it */
      }
      seg.fd = -1;
      this.closed.push(seg);
    }
    this.collect();
    const kept = this.closed.reduce((n, s) => n + s.clicks, 0);
    try {
      // Without the heartbeat, the next instance picks up what is left at once.
      unlinkSync(this.heartbeat);
    } catch {
      /* gone already */
    }
    return kept;
  }
}
