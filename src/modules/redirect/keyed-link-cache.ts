import type { InvalidationBus } from '../../infra/bus.js';
import type { RedirectLink } from './resolve.js';

interface Hit {
  link: RedirectLink;
  loadedAt: number;
  /** Loaded while invalidations flowed (the bus connected throughout): may live ttlMs. */
  trusted: boolean;
}

export interface KeyedLinkCacheOptions {
  /** Lifetime of a found link while invalidations flow (a safety net only). */
  ttlMs: number;
  /** Lifetime of "no such link", and of everything while the bus is away. */
  shortTtlMs: number;
  maxHits: number;
  maxMisses: number;
}

/**
 * Links by a string key (a short id; an alias's host and path) in memory, the one cache both
 * LinkCache and AliasCache are. Found and unknown keys live in separate bounded maps, so a scan
 * of unknown keys fills only the misses and never evicts a link visitors use. One load per key
 * at a time. Changes arrive through the bus by link id. Expiry is not cached (the redirect
 * compares expiresAt with the clock on every request).
 */
export class KeyedLinkCache {
  private readonly hits = new Map<string, Hit>();
  private readonly misses = new Map<string, number>();
  private readonly keysOfLink = new Map<string, Set<string>>();
  private readonly loading = new Map<string, Promise<RedirectLink | null>>();
  /** Bumped by every invalidation, so a load that raced one is not kept. */
  private generation = 0;

  constructor(
    private readonly load: (key: string) => Promise<RedirectLink | null>,
    protected readonly bus: InvalidationBus,
    private readonly o: KeyedLinkCacheOptions,
  ) {
    bus.subscribe((ids) => this.evict(ids));
    // Messages may have been missed while the bus was away: start afresh when it is back.
    bus.onReconnect?.(() => this.clear());
  }

  /** The cached answer, synchronously: a link, null (no such link), or undefined (not cached, or no longer fresh). */
  peek(key: string, nowMs = Date.now()): RedirectLink | null | undefined {
    const hit = this.hits.get(key);
    if (hit) {
      const ttl = hit.trusted && this.bus.connected() ? this.o.ttlMs : this.o.shortTtlMs;
      return nowMs - hit.loadedAt < ttl ? hit.link : undefined;
    }
    const missAt = this.misses.get(key);
    return missAt !== undefined && nowMs - missAt < this.o.shortTtlMs ? null : undefined;
  }

  /** Cached value, or a promise when it has to be loaded (one load per key at a time). */
  get(key: string, nowMs = Date.now()): RedirectLink | null | Promise<RedirectLink | null> {
    const cached = this.peek(key, nowMs);
    if (cached !== undefined) return cached;
    return this.loading.get(key) ?? this.startLoad(key);
  }

  private startLoad(key: string): Promise<RedirectLink | null> {
    const startGeneration = this.generation;
    const connectedAtStart = this.bus.connected();
    const p = this.load(key).then(
      (link) => {
        this.loading.delete(key);
        // An invalidation that raced this load may concern it: use the row once, keep nothing.
        if (this.generation === startGeneration) this.store(key, link, Date.now(), connectedAtStart && this.bus.connected());
        return link;
      },
      (err: unknown) => {
        this.loading.delete(key);
        throw err;
      },
    );
    this.loading.set(key, p);
    return p;
  }

  /** Keeps a loaded answer; the oldest of its map goes when that map is full. */
  private store(key: string, link: RedirectLink | null, nowMs: number, trusted: boolean): void {
    this.forget(key);
    if (link === null) {
      if (this.misses.size >= this.o.maxMisses) this.misses.delete(this.misses.keys().next().value!);
      this.misses.set(key, nowMs);
      return;
    }
    if (this.hits.size >= this.o.maxHits) this.forget(this.hits.keys().next().value!);
    this.hits.set(key, { link, loadedAt: nowMs, trusted });
    let keys = this.keysOfLink.get(link.id);
    if (!keys) this.keysOfLink.set(link.id, (keys = new Set()));
    keys.add(key);
  }

  private forget(key: string): void {
    this.misses.delete(key);
    const hit = this.hits.get(key);
    if (!hit) return;
    this.hits.delete(key);
    const keys = this.keysOfLink.get(hit.link.id);
    keys?.delete(key);
    if (keys?.size === 0) this.keysOfLink.delete(hit.link.id);
  }

  /** Links changed: drop every key leading to them. */
  evict(linkIds: string[]): void {
    this.generation++;
    for (const id of linkIds) for (const key of this.keysOfLink.get(id) ?? []) this.forget(key);
  }

  clear(): void {
    this.generation++;
    this.hits.clear();
    this.misses.clear();
    this.keysOfLink.clear();
  }
}
