import { sql } from 'drizzle-orm';
import { rows, type Database, type Db } from './connect.js';

/**
 * Analytics reads go to the read replica only while it is close behind the primary
 * (operations.md §17: more than 5 s behind, they fall back to the primary).
 *
 * How far behind is measured in time, not bytes: every second the primary's WAL position is
 * sampled and kept with the time it was read; the replica is as far behind as the oldest sample
 * it has not replayed yet. `now() - pg_last_xact_replay_timestamp()` is not used, since on an
 * idle primary it grows without the replica lagging at all. A replica that cannot be asked
 * counts as too far behind: its reads are answered by the primary, not refused.
 */

/** A WAL position ('16/B374D848') as a number that orders as the positions do. */
export function lsnValue(lsn: string): bigint {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(lsn);
  if (!match) throw new Error(`not a WAL position: ${lsn}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

export interface LsnSample {
  at: number;
  lsn: bigint;
}

/**
 * How many milliseconds the replica is behind at `now`: since the oldest primary sample past
 * what it has replayed; 0 when it has replayed the newest. Samples are oldest first.
 */
export function lagMs(samples: readonly LsnSample[], replayed: bigint, now: number): number {
  const firstUnreplayed = samples.find((s) => s.lsn > replayed);
  return firstUnreplayed ? Math.max(0, now - firstUnreplayed.at) : 0;
}

/** Keeps the samples that can still tell a lag of up to `keepMs`, and the one just before them. */
export function pruneSamples(samples: LsnSample[], now: number, keepMs: number): LsnSample[] {
  let from = 0;
  while (from + 1 < samples.length && samples[from + 1]!.at <= now - keepMs) from++;
  return from === 0 ? samples : samples.slice(from);
}

export interface ReplicaRouterOptions {
  primary: Database;
  replica: Database;
  /** Beyond this the primary answers (5 s). */
  maxLagMs?: number;
  intervalMs?: number;
  onChange?: (state: { usingReplica: boolean; lagMs: number | null }) => void;
}

/** Chooses, per read, the replica or the primary, from a measurement refreshed every second. */
export class ReplicaRouter {
  private samples: LsnSample[] = [];
  private lag: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private measured = false;
  private readonly maxLagMs: number;

  constructor(private readonly o: ReplicaRouterOptions) {
    this.maxLagMs = o.maxLagMs ?? 5000;
  }

  /**
   * Measures now and every `intervalMs` (1 s), without holding up the start: until the first
   * measurement (or while a replica that is down times out) the primary answers.
   */
  start(): void {
    void this.measure();
    this.timer = setInterval(() => void this.measure(), this.o.intervalMs ?? 1000);
    this.timer.unref();
  }

  /** The connection an analytics read uses now. */
  readonly current = (): Db => (this.usingReplica() ? this.o.replica.db : this.o.primary.db);

  /** The last measurement: milliseconds behind, or null when the replica could not be asked. */
  lastLagMs(): number | null {
    return this.lag;
  }

  /** Whether analytics reads use the replica now. */
  usingReplica(): boolean {
    return this.lag !== null && this.lag <= this.maxLagMs;
  }

  measure(): Promise<void> {
    // One measurement at a time: a slow replica must not pile up probes.
    this.running ??= this.measureOnce().finally(() => (this.running = undefined));
    return this.running;
  }

  private async measureOnce(): Promise<void> {
    const before = this.usingReplica();
    try {
      const [primary] = await rows<{ lsn: string }>(this.o.primary.db, sql`SELECT pg_current_wal_lsn()::text AS lsn`);
      const now = Date.now();
      this.samples.push({ at: now, lsn: lsnValue(primary!.lsn) });
      this.samples = pruneSamples(this.samples, now, this.maxLagMs * 4);
      const [replica] = await rows<{ lsn: string | null }>(this.o.replica.db, sql`SELECT pg_last_wal_replay_lsn()::text AS lsn`);
      // Null: not in recovery (a promoted replica, or a primary named as one): it has everything.
      this.lag = replica!.lsn === null ? 0 : lagMs(this.samples, lsnValue(replica!.lsn), Date.now());
    } catch {
      this.lag = null;
    }
    const after = this.usingReplica();
    // The first measurement finding the replica in step is the normal start, not a change worth a line.
    if (before !== after && (this.measured || !after)) this.o.onChange?.({ usingReplica: after, lagMs: this.lag });
    this.measured = true;
  }

  close(): void {
    clearInterval(this.timer);
  }
}
