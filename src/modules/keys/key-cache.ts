import type { KeyRow, WorkspaceRow } from './store.js';

/** Tells every instance that keys or workspaces changed (revocation, plan, limits). */
export interface AuthChangeBus {
  publishAuthChanged(): Promise<void>;
  onAuthChanged(listener: () => void): void;
  /** False while changes from other instances might be missed. */
  connected(): boolean;
}

type Found = { key: KeyRow; workspace: WorkspaceRow } | undefined;

/**
 * Keys by hash in memory, so an authenticated request costs no database round trip. Any
 * revocation or workspace change, on any instance, empties every cache at once; while the
 * bus is disconnected nothing is cached, so a revocation always holds on the next request.
 * Expiry is checked against the clock on every request, never cached.
 */
export class KeyCache {
  private readonly entries = new Map<string, { found: Found; at: number }>();

  constructor(
    private readonly bus: AuthChangeBus,
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 50_000,
  ) {
    bus.onAuthChanged(() => this.entries.clear());
  }

  async lookup(hashHex: string, load: () => Promise<Found>, nowMs = Date.now()): Promise<Found> {
    if (!this.bus.connected()) return load();
    const hit = this.entries.get(hashHex);
    if (hit && nowMs - hit.at < this.ttlMs) return hit.found;
    const found = await load();
    // Unknown keys are not remembered: a key created a moment later must work at once.
    if (found) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(hashHex, { found, at: nowMs });
    }
    return found;
  }

  changed(): Promise<void> {
    return this.bus.publishAuthChanged();
  }
}
