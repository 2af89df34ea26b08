import type { AuthChangeBus } from './bus.js';

/**
 * Resolved credentials by hash in memory, so an authenticated request costs no database round
 * trip. Any revocation, role or workspace change, on any instance, empties every cache at
 * once; while the bus is disconnected nothing is cached, so a revocation always holds on the
 * next request. Expiry is checked by the caller against the clock, never cached.
 */
export class CredentialCache<T> {
  private readonly entries = new Map<string, { found: T; at: number }>();

  constructor(
    private readonly bus: AuthChangeBus,
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 50_000,
  ) {
    bus.onAuthChanged(() => this.entries.clear());
  }

  async lookup(key: string, load: () => Promise<T | undefined>, nowMs = Date.now()): Promise<T | undefined> {
    if (!this.bus.connected()) return load();
    const hit = this.entries.get(key);
    if (hit && nowMs - hit.at < this.ttlMs) return hit.found;
    const found = await load();
    // Unknown credentials are not remembered: one created a moment later must work at once.
    if (found !== undefined) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, { found, at: nowMs });
    }
    return found;
  }

  /** Tells every instance (this one included) to forget what it cached. */
  changed(): Promise<void> {
    return this.bus.publishAuthChanged();
  }
}
