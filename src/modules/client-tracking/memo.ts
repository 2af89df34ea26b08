/**
 * A small cache of lookups by key for a few seconds, hits and misses alike: the browser-tracking
 * routes read the same key, partner and link for every visitor of a site. Bounded; `clear` on a
 * change this instance hears of (keys and hostnames through the credential epoch).
 */
export class Memo<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly max = 10_000,
  ) {}

  /** The cached value, or undefined when none is (or it is stale): never loads. */
  peek(key: string, nowMs: number): V | undefined {
    const hit = this.entries.get(key);
    return hit && hit.until > nowMs ? hit.value : undefined;
  }

  async get(key: string, nowMs: number, load: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.until > nowMs) return hit.value;
    // One load per key at a time: a burst of visitors asks the database once.
    let pending = this.loading.get(key);
    if (!pending) {
      pending = load().finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
      const value = await pending;
      if (this.entries.size >= this.max) this.entries.clear();
      this.entries.set(key, { value, until: nowMs + this.ttlMs });
      return value;
    }
    return pending;
  }

  clear(): void {
    this.entries.clear();
  }
}
