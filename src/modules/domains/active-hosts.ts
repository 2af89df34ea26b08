import type { DomainChangeBus, InvalidationBus } from '../../infra/bus.js';

/** An active host as the redirect needs it. */
export interface ClaimedHost {
  host: string;
  workspaceId: string;
  rootUrl: string | null;
  notFoundUrl: string | null;
}

type Bus = DomainChangeBus & Pick<InvalidationBus, 'connected' | 'onReconnect'>;

export interface ActiveHostsOptions {
  /** Reload this often while changes flow through the bus (a safety net only). */
  refreshMs: number;
  /** …and this often while the bus is away (changes from other instances may be missed). */
  shortRefreshMs: number;
}

/**
 * The server's active hosts, in memory on every instance: the redirect asks it once per request
 * (one Map lookup of the Host header as sent). Reloaded whole — a few rows — when any instance
 * announces a change through the bus, when the bus comes back, and as a safety net on a timer
 * (every refreshMs, or every shortRefreshMs while the bus is away): the same bound the link
 * cache keeps.
 */
export class ActiveHosts {
  private byHost = new Map<string, ClaimedHost>();
  private listeners: (() => void)[] = [];
  private loadedAt = 0;
  private reloading: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly load: () => Promise<ClaimedHost[]>,
    private readonly bus: Bus,
    private readonly log: { warn(o: object, m: string): void },
    private readonly o: ActiveHostsOptions = { refreshMs: 60_000, shortRefreshMs: 1_000 },
  ) {
    bus.onDomainsChanged(() => void this.refresh());
    bus.onReconnect?.(() => void this.refresh());
  }

  /** Loads the table once, then keeps it fresh until close(). */
  async start(): Promise<void> {
    await this.refresh();
    const tick = Math.min(this.o.shortRefreshMs, this.o.refreshMs);
    this.timer = setInterval(() => {
      const due = this.bus.connected() ? this.o.refreshMs : this.o.shortRefreshMs;
      if (Date.now() - this.loadedAt >= due) void this.refresh();
    }, tick);
    this.timer.unref();
  }

  /** Stops reloading (announcements still arriving through the bus included), and waits for a reload under way: the database may close next. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.reloading;
  }

  /** Whether any host is active at all: with none, the redirect skips the lookup. */
  get size(): number {
    return this.byHost.size;
  }

  /**
   * The active host a Host header names, with or without :80 / :443, in any case (host names are
   * case-insensitive), with or without the root's trailing dot (`brand.example.`, RFC 4343
   * practice; hosts are stored without it): as sent first (browsers send lower-case), then
   * lower-cased, then without the dot, each only on a miss.
   */
  get(hostHeader: string | undefined): ClaimedHost | undefined {
    if (hostHeader === undefined) return undefined;
    return this.byHost.get(hostHeader) ?? this.byHost.get(hostHeader.toLowerCase()) ?? this.withoutRootDot(hostHeader);
  }

  private withoutRootDot(hostHeader: string): ClaimedHost | undefined {
    if (!hostHeader.endsWith('.') && !hostHeader.includes('.:')) return undefined;
    const bare = hostHeader.replace(/\.(?=:\d+$|$)/, '');
    return bare === hostHeader ? undefined : this.byHost.get(bare.toLowerCase());
  }

  /** Called after every reload that may have changed something (the alias cache empties itself). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Reloads now; a change announced during a reload triggers one more after it. */
  refresh(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.reloading) {
      this.again = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      do {
        this.again = false;
        try {
          this.replace(await this.load());
        } catch (err) {
          // Keep serving the last table; the timer tries again.
          this.log.warn({ err }, 'claimed hosts: reload failed');
        }
      } while (this.again && !this.closed);
      this.reloading = undefined;
    })();
    return this.reloading;
  }

  private replace(hosts: ClaimedHost[]): void {
    const next = new Map<string, ClaimedHost>();
    // Browsers send the bare host; some clients add the scheme's default port.
    for (const h of hosts) for (const key of [h.host, `${h.host}:80`, `${h.host}:443`]) next.set(key, h);
    this.byHost = next;
    this.loadedAt = Date.now();
    for (const l of this.listeners) l();
  }
}
