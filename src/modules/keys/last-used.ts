import type { Conn } from '../../db/connect.js';
import { touchKeys } from './store.js';

/**
 * Remembers when each key was last used and writes them all in one statement every few
 * seconds (and at shutdown), so an authenticated request never waits on a write.
 */
export class LastUsedTracker {
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Conn,
    private readonly onError: (err: unknown) => void,
    intervalMs = 5000,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  touch(keyId: string, at: Date): void {
    this.pending.set(keyId, at);
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending].map(([id, at]) => ({ id, at }));
    this.pending = new Map();
    try {
      await touchKeys(this.db, batch);
    } catch (err) {
      // Keep the newest time of each key for the next attempt.
      for (const { id, at } of batch) if (!this.pending.has(id)) this.pending.set(id, at);
      this.onError(err);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
