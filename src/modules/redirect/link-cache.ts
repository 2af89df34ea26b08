import type { InvalidationBus } from '../../infra/bus.js';
import type { RedirectLink } from './resolve.js';

interface Entry {
  link: RedirectLink | null;
  loadedAt: number;
  /** Loaded while invalidations flowed (the bus connected throughout): may live ttlMs. */
  trusted: boolean;
}

export interface LinkCacheOptions {
  /** Lifetime of a cached link while invalidations flow (a safety net only). */
  ttlMs: number;
  /** Lifetime of "no such link", and of everything while the bus is disconnected. */
  shortTtlMs: number;
  maxEntries: number;
}

/**
 * Links by short id in memory. Changes arrive through the bus; expiry is not cached (the
 * redirect compares expiresAt with the clock on every request).
 */
export class LinkCache {
  private readonly entries = new Map<string, Entry>();
  private readonly shortIdOf = new Map<string, string>();
  private readonly loading = new Map<string, Promise<RedirectLink | null>>();
  /** Bumped by every invalidation, so a load that raced one is not trusted. */
  private generation = 0;

  constructor(
    private readonly load: (shortId: string) => Promise<RedirectLink | null>,
    private readonly bus: InvalidationBus,
    private readonly o: LinkCacheOptions = { ttlMs: 60_000, shortTtlMs: 1_000, maxEntries: 100_000 },
  ) {
    bus.subscribe((ids) => this.evict(ids));
    // Messages may have been missed while the bus was away: start afresh when it is back.
    bus.onReconnect?.(() => this.clear());
  }

  /** The cached link, synchronously, or undefined when it is not cached (or no longer fresh). */
  peek(shortId: string, nowMs = Date.now()): RedirectLink | null | undefined {
    const hit = this.entries.get(shortId);
    if (!hit) return undefined;
    const ttl = hit.link && hit.trusted && this.bus.connected() ? this.o.ttlMs : this.o.shortTtlMs;
    return nowMs - hit.loadedAt < ttl ? hit.link : undefined;
  }

  /** Cached value, or a promise when it has to be loaded (one load per short id at a time). */
  get(shortId: string, nowMs = Date.now()): RedirectLink | null | Promise<RedirectLink | null> {
    const cached = this.peek(shortId, nowMs);
    if (cached !== undefined) return cached;
    const pending = this.loading.get(shortId);
    if (pending) return pending;
    const startGeneration = this.generation;
    const connectedAtStart = this.bus.connected();
    const p = this.load(shortId).then(
      (link) => {
        this.loading.delete(shortId);
        // An invalidation that raced this load may concern it: use the row once, keep nothing.
        if (this.generation === startGeneration) this.store(shortId, link, Date.now(), connectedAtStart && this.bus.connected());
        return link;
      },
      (err: unknown) => {
        this.loading.delete(shortId);
        throw err;
      },
    );
    this.loading.set(shortId, p);
    return p;
  }

  private store(shortId: string, link: RedirectLink | null, nowMs: number, trusted: boolean): void {
    const previous = this.entries.get(shortId);
    if (previous) this.drop(shortId, previous);
    else if (this.entries.size >= this.o.maxEntries) {
      const [oldestId, oldest] = this.entries.entries().next().value ?? [];
      if (oldestId !== undefined && oldest) this.drop(oldestId, oldest);
    }
    this.entries.set(shortId, { link, loadedAt: nowMs, trusted });
    if (link) this.shortIdOf.set(link.id, shortId);
  }

  private drop(shortId: string, entry: Entry): void {
    this.entries.delete(shortId);
    if (entry.link) this.shortIdOf.delete(entry.link.id);
  }

  evict(linkIds: string[]): void {
    this.generation++;
    for (const id of linkIds) {
      const shortId = this.shortIdOf.get(id);
      if (shortId === undefined) continue;
      this.entries.delete(shortId);
      this.shortIdOf.delete(id);
    }
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.shortIdOf.clear();
  }

  /** Announces changed links to every instance (this one included). */
  changed(linkIds: string[]): Promise<void> {
    return linkIds.length ? this.bus.publish(linkIds) : Promise.resolve();
  }
}
