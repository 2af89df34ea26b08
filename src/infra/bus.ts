/**
 * Messages between instances: link changes (redirect caches), key and workspace changes (key
 * caches) and click-flush requests. Redis pub/sub when configured, in process otherwise.
 */
import type { Redis } from 'ioredis';

/** Tells every instance that credentials, roles or workspaces changed (revocation, plan, limits). */
export interface AuthChangeBus {
  publishAuthChanged(): Promise<void>;
  onAuthChanged(listener: () => void): void;
  /** False while changes from other instances might be missed. */
  connected(): boolean;
  /**
   * Compares the shared epoch a request just read with the one this instance last saw; when it
   * moved, empties the caches at once (before the pub/sub message arrives) and answers true.
   */
  observeAuthEpoch?(epoch: string): boolean;
}

/** The counter every instance increments when a credential, role or membership changes. */
export const AUTH_EPOCH_KEY = 'lt:auth:epoch';

/** Asks every instance to flush its click queue now (a tracked click id may wait there). */
export interface ClickFlushBus {
  requestClickFlush(): Promise<void>;
  onClickFlushRequest(listener: () => void): void;
}

/** Tells every instance that claimed hosts changed (claimed, verified, edited or removed). */
export interface DomainChangeBus {
  publishDomainsChanged(): Promise<void>;
  onDomainsChanged(listener: () => void): void;
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
export class LocalBus implements InvalidationBus, ClickFlushBus, AuthChangeBus, DomainChangeBus {
  private listeners: ((ids: string[]) => void)[] = [];
  private domainListeners: (() => void)[] = [];
  async publishDomainsChanged() {
    for (const l of this.domainListeners) l();
  }
  onDomainsChanged(listener: () => void) {
    this.domainListeners.push(listener);
  }
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
const DOMAINS_CHANNEL = 'lt:domains:changed';

/** Redis pub/sub between instances; the publisher also applies its own changes locally. */
export class RedisBus implements InvalidationBus, ClickFlushBus, AuthChangeBus, DomainChangeBus {
  private readonly local = new LocalBus();
  private ready = false;
  private everReady = false;
  private reconnectListeners: (() => void)[] = [];
  /** Changes that could not be announced while Redis was away, sent again when it is back. */
  private unsentLinks = new Set<string>();
  private unsentAuth = false;
  private unsentDomains = false;
  private authEpoch: string | undefined;

  constructor(
    private readonly pub: Redis,
    private readonly sub: Redis,
    private readonly log: { warn: (o: object, m: string) => void },
  ) {
    sub.on('ready', () => {
      sub.subscribe(CHANNEL, FLUSH_CHANNEL, AUTH_CHANNEL, DOMAINS_CHANNEL).then(
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
      if (channel === DOMAINS_CHANNEL) return void this.local.publishDomainsChanged();
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
    if (this.unsentDomains) {
      this.unsentDomains = false;
      await this.publishDomainsChanged();
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
      // The epoch first: once this returns, any instance's next request reads the new value
      // with its rate-limit step and drops its caches, even before this message reaches it.
      this.authEpoch = String(await this.pub.incr(AUTH_EPOCH_KEY));
      await this.pub.publish(AUTH_CHANNEL, '1');
    } catch (err) {
      this.unsentAuth = true;
      this.log.warn({ err }, 'could not tell other instances that keys changed; will resend');
    }
  }
  onAuthChanged(listener: () => void) {
    this.local.onAuthChanged(listener);
  }
  async publishDomainsChanged() {
    await this.local.publishDomainsChanged();
    try {
      await this.pub.publish(DOMAINS_CHANNEL, '1');
    } catch (err) {
      this.unsentDomains = true;
      this.log.warn({ err }, 'could not tell other instances that claimed hosts changed; will resend');
    }
  }
  onDomainsChanged(listener: () => void) {
    this.local.onDomainsChanged(listener);
  }
  observeAuthEpoch(epoch: string): boolean {
    if (epoch === this.authEpoch) return false;
    this.authEpoch = epoch;
    void this.local.publishAuthChanged();
    return true;
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
