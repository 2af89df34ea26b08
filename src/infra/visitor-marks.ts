import type { Redis } from 'ioredis';

/**
 * "This visitor was already seen here": the first value set under a key for a while, shared by
 * every instance (Redis `SET NX`) or kept in process. Browser tracking gives a visitor who comes
 * back to the same link within the hour the click id of their first visit (operations.md §19).
 */
export interface VisitorMarks {
  /** The value already under `key` if one is live, else `value`, now set for `ttlMs`. */
  claim(key: string, value: string, ttlMs: number, nowMs: number): Promise<string>;
  close(): Promise<void>;
}

/** Past this many live marks the oldest are forgotten, so a flood of visitors cannot exhaust memory. */
const MAX_MARKS = 200_000;

/** In process: one instance, and the fallback while Redis is away. */
export class MemoryVisitorMarks implements VisitorMarks {
  private readonly marks = new Map<string, { value: string; until: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly max = MAX_MARKS) {
    this.sweeper = setInterval(() => this.sweep(Date.now()), 60_000);
    this.sweeper.unref();
  }

  async claim(key: string, value: string, ttlMs: number, nowMs: number): Promise<string> {
    return this.claimSync(key, value, ttlMs, nowMs);
  }

  claimSync(key: string, value: string, ttlMs: number, nowMs: number): string {
    const mark = this.marks.get(key);
    if (mark && mark.until > nowMs) return mark.value;
    this.marks.delete(key);
    this.marks.set(key, { value, until: nowMs + ttlMs });
    if (this.marks.size > this.max) this.marks.delete(this.marks.keys().next().value!);
    return value;
  }

  private sweep(nowMs: number): void {
    for (const [key, mark] of this.marks) if (mark.until <= nowMs) this.marks.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

/** In Redis: `SET key value NX PX ttl`, and the value already there when it was not set. Redis away: in process. */
export class RedisVisitorMarks implements VisitorMarks {
  private readonly fallback = new MemoryVisitorMarks();

  constructor(
    private readonly redis: Redis,
    private readonly log: { warn: (obj: object, msg: string) => void },
  ) {}

  async claim(key: string, value: string, ttlMs: number, nowMs: number): Promise<string> {
    try {
      const set = await this.redis.set(`lt:vm:${key}`, value, 'PX', ttlMs, 'NX');
      if (set === 'OK') return value;
      // Set by another request; gone meanwhile (expired this very moment): this one's.
      return (await this.redis.get(`lt:vm:${key}`)) ?? value;
    } catch (err) {
      this.log.warn({ err }, 'visitor marks: Redis unavailable, kept in process');
      return this.fallback.claimSync(key, value, ttlMs, nowMs);
    }
  }

  async close(): Promise<void> {
    await this.fallback.close();
  }
}
