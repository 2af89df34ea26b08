import type { Redis } from 'ioredis';

/**
 * Counts failures per key; a key's count resets windowMs after its latest failure.
 * The memory counter reads time from nowMs; Redis counts expire by Redis's own clock.
 */
export interface FailureCounter {
  count(key: string, nowMs: number): Promise<number>;
  add(key: string, windowMs: number, nowMs: number): Promise<number>;
  clear(key: string): Promise<void>;
  /** Milliseconds until the key's count resets (0 when it has none): the basis of retryAfter. */
  expiresIn(key: string, nowMs: number): Promise<number>;
  close(): Promise<void>;
}

const SWEEP_MS = 60_000;
/** Past this many live keys the oldest are forgotten, so a flood of addresses cannot exhaust memory. */
const MAX_ENTRIES = 100_000;

/** In-process counts, the default for one instance and the fallback while Redis is away. */
export class MemoryFailureCounter implements FailureCounter {
  private readonly entries = new Map<string, { failures: number; expiresAt: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly maxEntries = MAX_ENTRIES) {
    this.sweeper = setInterval(() => this.sweep(Date.now()), SWEEP_MS);
    this.sweeper.unref();
  }

  async count(key: string, nowMs: number): Promise<number> {
    return this.live(key, nowMs)?.failures ?? 0;
  }

  async add(key: string, windowMs: number, nowMs: number): Promise<number> {
    const failures = (this.live(key, nowMs)?.failures ?? 0) + 1;
    // Re-inserted so the Map's order is by latest failure, and eviction takes the stalest.
    this.entries.delete(key);
    this.entries.set(key, { failures, expiresAt: nowMs + windowMs });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return failures;
  }

  async clear(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async expiresIn(key: string, nowMs: number): Promise<number> {
    const entry = this.live(key, nowMs);
    return entry ? entry.expiresAt - nowMs : 0;
  }

  get size(): number {
    return this.entries.size;
  }

  private live(key: string, nowMs: number) {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= nowMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  sweep(nowMs: number): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= nowMs) this.entries.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

/**
 * Counts in Redis under `lt:lf:`, shared by every instance. If Redis cannot answer, failures are
 * counted in process instead (logged once per outage) until Redis is back; the two sets of counts
 * are not merged, so an outage can only forget failures, never invent them.
 */
export class RedisFailureCounter implements FailureCounter {
  private readonly fallback = new MemoryFailureCounter();
  private degraded = false;

  constructor(
    private readonly redis: Redis,
    private readonly log: { warn(o: object, m: string): void; info?(m: string): void },
    private readonly prefix = 'lt:lf:',
  ) {}

  async count(key: string, nowMs: number): Promise<number> {
    return this.attempt(
      async () => Number((await this.redis.get(`${this.prefix}${key}`)) ?? 0),
      () => this.fallback.count(key, nowMs),
    );
  }

  async add(key: string, windowMs: number, nowMs: number): Promise<number> {
    return this.attempt(
      async () => {
        const k = `${this.prefix}${key}`;
        // One transaction: a count never outlives its window even if the client dies in between.
        const replies = await this.redis.multi().incr(k).pexpire(k, windowMs).exec();
        const [incrErr, failures] = replies?.[0] ?? [new Error('transaction aborted'), 0];
        if (incrErr) throw incrErr;
        return Number(failures);
      },
      () => this.fallback.add(key, windowMs, nowMs),
    );
  }

  async clear(key: string): Promise<void> {
    // Cleared in both places, so counts made during an outage do not return after it.
    await this.fallback.clear(key);
    await this.attempt(
      async () => void (await this.redis.del(`${this.prefix}${key}`)),
      async () => undefined,
    );
  }

  async expiresIn(key: string, nowMs: number): Promise<number> {
    return this.attempt(
      async () => Math.max(0, await this.redis.pttl(`${this.prefix}${key}`)),
      () => this.fallback.expiresIn(key, nowMs),
    );
  }

  private async attempt<T>(onRedis: () => Promise<T>, inProcess: () => Promise<T>): Promise<T> {
    try {
      const result = await onRedis();
      if (this.degraded) {
        this.degraded = false;
        this.log.info?.('login throttle: Redis is back, shared failure counts restored');
      }
      return result;
    } catch (err) {
      if (!this.degraded) {
        this.degraded = true;
        this.log.warn({ err }, 'login throttle: Redis unavailable, counting failures in process until it returns');
      }
      return inProcess();
    }
  }

  async close(): Promise<void> {
    await this.fallback.close();
  }
}
