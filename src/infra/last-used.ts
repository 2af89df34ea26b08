/**
 * Remembers when each credential (key, session, token) was last used and writes them all in
 * one statement every few seconds (and at shutdown), so an authenticated request never waits
 * on a write.
 */
export class LastUsedTracker {
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: (batch: { id: string; at: Date }[]) => Promise<void>,
    private readonly onError: (err: unknown) => void,
    intervalMs = 5000,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  touch(id: string, at: Date): void {
    this.pending.set(id, at);
  }

  /** The use recorded here and not yet written (a row read meanwhile is older than this). */
  pendingAt(id: string): Date | undefined {
    return this.pending.get(id);
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending].map(([id, at]) => ({ id, at }));
    this.pending = new Map();
    try {
      await this.write(batch);
    } catch (err) {
      // Keep the newest time of each for the next attempt.
      for (const { id, at } of batch) if (!this.pending.has(id)) this.pending.set(id, at);
      this.onError(err);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
