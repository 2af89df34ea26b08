import type { InvalidationBus } from '../../infra/bus.js';
import { KeyedLinkCache, type KeyedLinkCacheOptions } from './keyed-link-cache.js';
import type { RedirectLink } from './resolve.js';

/** One key per alias: a host holds no line break, so the first one splits the key again. */
const keyOf = (host: string, path: string) => `${host}\n${path}`;

/**
 * Links by alias (host and path), apart from the link cache, so that a scan of unknown paths on
 * a claimed host never evicts a short link (see KeyedLinkCache). Link changes arrive through the
 * bus as for LinkCache; claimed-host changes empty it (see ActiveHosts.onChange).
 */
export class AliasCache {
  private readonly byKey: KeyedLinkCache;

  constructor(
    load: (host: string, path: string) => Promise<RedirectLink | null>,
    bus: InvalidationBus,
    o: KeyedLinkCacheOptions = { ttlMs: 60_000, shortTtlMs: 1_000, maxHits: 50_000, maxMisses: 10_000 },
  ) {
    this.byKey = new KeyedLinkCache(
      (key) => {
        const split = key.indexOf('\n');
        return load(key.slice(0, split), key.slice(split + 1));
      },
      bus,
      o,
    );
  }

  /** The cached answer, synchronously: a link, null (no such alias), or undefined (not cached). */
  peek(host: string, path: string, nowMs?: number): RedirectLink | null | undefined {
    return this.byKey.peek(keyOf(host, path), nowMs);
  }

  /** Cached value, or a promise when it has to be loaded (one load per alias at a time). */
  get(host: string, path: string, nowMs?: number): RedirectLink | null | Promise<RedirectLink | null> {
    return this.byKey.get(keyOf(host, path), nowMs);
  }

  clear(): void {
    this.byKey.clear();
  }
}
