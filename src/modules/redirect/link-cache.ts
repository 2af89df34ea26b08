import type { Redis } from 'ioredis';
import type { AuthChangeBus } from '../keys/key-cache.js';
import type { RedirectLink } from './resolve.js';

/** Asks every instance to flush its click queue now (a tracked click id may wait there). */
export interface ClickFlushBus {
  requestClickFlush(): Promise<void>;
  onClickFlushRequest(listener: () => void): void;
}

/** Tells every instance which links changed. */
export interface InvalidationBus {
  publish(linkIds: string[]): Promise<void>;
  subscribe(listener: (linkIds: string[]) => void): void;
  /** False while changes from other instances might be missed (Redis away). */
  connected(): boolean;
  /** Called when the bus is back after an outage (messages may have been missed meanwhile). */
  onReconnect?(listener: () => void): void;
  close(): Promise<void>;
}

/** One process: changes are seen at once. */
export class LocalBus implements InvalidationBus, ClickFlushBus, AuthChangeBus {
  private listeners: ((ids: string[]) => void)[] = [];
  private flushListeners: (() => void)[] = [];
  private authListeners: (() => void)[] = [];
  async publishAuthChanged() {
    for (const l of this.authListeners) l();
  }
  onAuthChanged(listener: () => void) {
    this.authListeners.push(listener);
  }
  async publish(linkIds: string[]) {
    for (const l of this.listeners) l(linkIds);
  }
  subscribe(listener: (ids: string[]) => void) {
    this.listeners.push(listener);
  }
  async requestClickFlush() {
    for (const l of this.flushListeners) l();
  }
  onClickFlushRequest(listener: () => void) {
    this.flushListeners.push(listener);
  }
  connected() {
    return true;
  }
  async close() {}
}

const CHANNEL = 'lt:links:changed';
const FLUSH_CHANNEL = 'lt:clicks:flush';
const AUTH_CHANNEL = 'lt:auth:changed';

/** Redis pub/sub between instances; the publisher also applies its own changes locally. */
export class RedisBus implements InvalidationBus, ClickFlushBus, AuthChangeBus {
  private readonly local = new LocalBus();
  private ready = false;
  private everReady = false;
  private reconnectListeners: (() => void)[] = [];
  /** Changes that could not be announced while Redis was away, sent again when it is back. */
  private unsentLinks = new Set<string>();
  private unsentAuth = false;

  constructor(
    private readonly pub: Redis,
    private readonly sub: Redis,
    private readonly log: { warn: (o: object, m: string) => void },
  ) {
    sub.on('ready', () => {
      sub.subscribe(CHANNEL, FLUSH_CHANNEL, AUTH_CHANNEL).then(
        () => {
          this.ready = true;
          if (this.everReady) for (const l of this.reconnectListeners) l();
          this.everReady = true;
        },
        (err: unknown) => this.log.warn({ err }, 'link cache: subscribe failed'),
      );
    });
    // Losing the subscription may lose messages: caches must not trust what they hold.
    sub.on('close', () => {
      this.ready = false;
      void this.local.publishAuthChanged();
    });
    sub.on('end', () => (this.ready = false));
    pub.on('ready', () => void this.resend());
    sub.on('message', (channel: string, message: string) => {
      if (channel === FLUSH_CHANNEL) return void this.local.requestClickFlush();
      if (channel === AUTH_CHANNEL) return void this.local.publishAuthChanged();
      try {
        void this.local.publish(JSON.parse(message) as string[]);
      } catch {
        /* not ours */
      }
    });
  }

  async publish(linkIds: string[]) {
    await this.local.publish(linkIds);
    try {
      await this.pub.publish(CHANNEL, JSON.stringify(linkIds));
    } catch (err) {
      // Instances whose own Redis link is up would keep the old link: announce it again later.
      for (const id of linkIds) this.unsentLinks.add(id);
      this.log.warn({ err }, 'link cache: could not publish invalidation; will resend');
    }
  }

  private async resend(): Promise<void> {
    if (this.unsentLinks.size) {
      const ids = [...this.unsentLinks];
      this.unsentLinks.clear();
      await this.publish(ids);
    }
    if (this.unsentAuth) {
      this.unsentAuth = false;
      await this.publishAuthChanged();
    }
  }
  subscribe(listener: (ids: string[]) => void) {
    this.local.subscribe(listener);
  }
  async requestClickFlush() {
    await this.local.requestClickFlush();
    try {
      await this.pub.publish(FLUSH_CHANNEL, '1');
    } catch (err) {
      this.log.warn({ err }, 'could not ask other instances to flush clicks');
    }
  }
  onClickFlushRequest(listener: () => void) {
    this.local.onClickFlushRequest(listener);
  }
  async publishAuthChanged() {
    await this.local.publishAuthChanged();
    try {
      await this.pub.publish(AUTH_CHANNEL, '1');
    } catch (err) {
      this.unsentAuth = true;
      this.log.warn({ err }, 'could not tell other instances that keys changed; will resend');
    }
  }
  onAuthChanged(listener: () => void) {
    this.local.onAuthChanged(listener);
  }
  onReconnect(listener: () => void) {
    this.reconnectListeners.push(listener);
  }
  connected() {
    return this.ready;
  }
  async close() {
    this.sub.disconnect();
  }
}

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
