import type { InvalidationBus } from '../../infra/bus.js';
import type { RedirectLink } from './resolve.js';

interface Hit {
  link: RedirectLink;
  loadedAt: number;
  trusted: boolean;
}

export interface AliasCacheOptions {
  /** Lifetime of a found alias while invalidations flow (a safety net only). */
  ttlMs: number;
  /** Lifetime of "no such alias", and of everything while the bus is away. */
  shortTtlMs: number;
  maxHits: number;
  maxMisses: number;
}

const keyOf = (host: string, path: string) => `${host}\n${path}`;

/**
 * Links by alias (host and path), apart from the link cache, with found and unknown aliases in
 * separate bounded maps: a scan of unknown paths fills only the misses, never evicting an alias
 * (nor a short link) that visitors use. Link changes arrive through the bus as for LinkCache;
 * claimed-host changes empty it (see ActiveHosts.onChange).
 */
export class AliasCache {
  private readonly hits = new Map<string, Hit>();
  private readonly misses = new Map<string, number>();
  private readonly keysOfLink = new Map<string, Set<string>>();
  private readonly loading = new Map<string, Promise<RedirectLink | null>>();
  private generation = 0;

  constructor(
    private readonly load: (host: string, path: string) => Promise<RedirectLink | null>,
    private readonly bus: InvalidationBus,
    private readonly o: AliasCacheOptions = { ttlMs: 60_000, shortTtlMs: 1_000, maxHits: 50_000, maxMisses: 10_000 },
  ) {
    bus.subscribe((ids) => this.evict(ids));
    bus.onReconnect?.(() => this.clear());
  }

  /** The cached answer, synchronously: a link, null (no such alias), or undefined (not cached). */
  peek(host: string, path: string, nowMs = Date.now()): RedirectLink | null | undefined {
    const key = keyOf(host, path);
    const hit = this.hits.get(key);
    if (hit) {
      const ttl = hit.trusted && this.bus.connected() ? this.o.ttlMs : this.o.shortTtlMs;
      return nowMs - hit.loadedAt < ttl ? hit.link : undefined;
    }
    const missAt = this.misses.get(key);
    return missAt !== undefined && nowMs - missAt < this.o.shortTtlMs ? null : undefined;
  }

  /** Cached value, or a promise when it has to be loaded (one load per alias at a time). */
  get(host: string, path: string, nowMs = Date.now()): RedirectLink | null | Promise<RedirectLink | null> {
    const cached = this.peek(host, path, nowMs);
    if (cached !== undefined) return cached;
    const key = keyOf(host, path);
    const pending = this.loading.get(key);
    if (pending) return pending;
    const startGeneration = this.generation;
    const connectedAtStart = this.bus.connected();
    const p = this.load(host, path).then(
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

  /** Links changed (their fields or their aliases): drop every alias leading to them. */
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
