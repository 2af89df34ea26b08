import type { InvalidationBus } from '../../infra/bus.js';
import { KeyedLinkCache, type KeyedLinkCacheOptions } from './keyed-link-cache.js';
import type { RedirectLink } from './resolve.js';

/** Links by short id in memory (see KeyedLinkCache); it also announces link changes to every instance. */
export class LinkCache extends KeyedLinkCache {
  constructor(
    load: (shortId: string) => Promise<RedirectLink | null>,
    bus: InvalidationBus,
    o: KeyedLinkCacheOptions = { ttlMs: 60_000, shortTtlMs: 1_000, maxHits: 100_000, maxMisses: 10_000 },
  ) {
    super(load, bus, o);
  }

  /** Announces changed links to every instance (this one included). */
  changed(linkIds: string[]): Promise<void> {
    return linkIds.length ? this.bus.publish(linkIds) : Promise.resolve();
  }
}
