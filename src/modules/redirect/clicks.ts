import { isbot } from 'isbot';
import { UAParser } from 'ua-parser-js';
import type { ClickRow } from './store.js';
import type { CountryLookup } from './visitor.js';

/** What the request path knows about a click; the rest is derived when the batch is written. */
export interface RawClick {
  id: string;
  workspaceId: string;
  linkId: string;
  partnerId: string | null;
  at: number;
  ip: string;
  userAgent: string;
  referer: string | undefined;
  country: string | undefined;
}

export interface ClickQueueOptions {
  batchSize: number;
  flushIntervalMs: number;
  /** Clicks held in memory at most; beyond it, requests wait for room (never dropped). */
  capacity: number;
}

function deviceOf(type: string | undefined, os: string | undefined): ClickRow['device'] {
  if (type === 'mobile') return 'mobile';
  if (type === 'tablet') return 'tablet';
  if (type === undefined) return os ? 'desktop' : 'other';
  return 'other';
}

function referrerOf(referer: string | undefined): { referrer: string; referrerUrl: string | null } {
  if (!referer) return { referrer: '(direct)', referrerUrl: null };
  try {
    return { referrer: new URL(referer).hostname || '(direct)', referrerUrl: referer.slice(0, 2048) };
  } catch {
    return { referrer: '(direct)', referrerUrl: null };
  }
}

interface AgentFacts {
  device: ClickRow['device'];
  browser: string | null;
  os: string | null;
  bot: boolean;
}

// Real traffic repeats a few thousand User-Agents: parse each once.
const agentCache = new Map<string, AgentFacts>();
const AGENT_CACHE_SIZE = 10_000;

export function agentFacts(userAgent: string): AgentFacts {
  let facts = agentCache.get(userAgent);
  if (facts) return facts;
  const ua = new UAParser(userAgent).getResult();
  facts = { device: deviceOf(ua.device.type, ua.os.name), browser: ua.browser.name ?? null, os: ua.os.name ?? null, bot: isbot(userAgent) };
  if (agentCache.size >= AGENT_CACHE_SIZE) agentCache.clear();
  agentCache.set(userAgent, facts);
  return facts;
}

/** Turns a raw click into its stored record: User-Agent parsing, bot flag, country, referrer. */
export function enrichClick(raw: RawClick, lookup: CountryLookup): ClickRow {
  const agent = agentFacts(raw.userAgent);
  return {
    id: raw.id,
    workspaceId: raw.workspaceId,
    linkId: raw.linkId,
    partnerId: raw.partnerId,
    createdAt: new Date(raw.at).toISOString(),
    country: raw.country ?? lookup(raw.ip) ?? null,
    device: agent.device,
    browser: agent.browser,
    os: agent.os,
    ...referrerOf(raw.referer),
    bot: agent.bot,
  };
}

/**
 * Clicks are queued by the redirect and written in batches, one statement each. A failed
 * write keeps its batch for the next attempt; a full queue makes new clicks wait.
 */
export class ClickQueue {
  private queue: RawClick[] = [];
  private readonly pendingIds = new Set<string>();
  private flushing: Promise<void> | undefined;
  private waiters: (() => void)[] = [];
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  /** Clicks accepted from the redirect, and written to the database, since start. */
  accepted = 0;
  written = 0;

  constructor(
    private readonly write: (clicks: ClickRow[]) => Promise<void>,
    private readonly lookup: CountryLookup,
    private readonly log: { warn: (o: object, m: string) => void; info: (o: object, m: string) => void },
    private readonly o: ClickQueueOptions = { batchSize: 2000, flushIntervalMs: 100, capacity: 100_000 },
  ) {
    this.timer = setInterval(() => void this.flush(), o.flushIntervalMs);
    this.timer.unref();
  }

  /** Queues a click; returns a promise only when the queue is full (back-pressure). */
  enqueue(click: RawClick): void | Promise<void> {
    if (this.queue.length >= this.o.capacity) {
      void this.flush();
      return new Promise<void>((resolve) => this.waiters.push(resolve)).then(() => this.enqueue(click));
    }
    this.queue.push(click);
    this.accepted++;
    this.pendingIds.add(click.id);
    if (this.queue.length >= this.o.batchSize) void this.flush();
  }

  /** Whether a click can be queued without waiting. */
  hasRoom(): boolean {
    return this.queue.length < this.o.capacity;
  }

  /** Whether a click id was handed out but is not yet in the database. */
  isPending(clickId: string): boolean {
    return this.pendingIds.has(clickId);
  }

  get size(): number {
    return this.queue.length;
  }

  /** Writes everything queued so far (one statement per batch). */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.queue.length ? this.flush() : undefined));
    if (this.queue.length === 0) return Promise.resolve();
    this.flushing = this.drain().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, this.o.batchSize);
      try {
        await this.write(batch.map((c) => enrichClick(c, this.lookup)));
      } catch (err) {
        this.log.warn({ err, clicks: batch.length }, 'click batch not written; will retry');
        if (this.closed) throw err;
        return;
      }
      this.queue.splice(0, batch.length);
      this.written += batch.length;
      for (const c of batch) this.pendingIds.delete(c.id);
      const free = this.waiters.splice(0, this.o.capacity - this.queue.length);
      for (const w of free) w();
    }
  }

  /** Flushes all clicks; retries a few times so a brief database hiccup loses nothing. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    for (let attempt = 0; this.queue.length > 0 && attempt < 5; attempt++) {
      await this.flush();
      if (this.queue.length) await new Promise((r) => setTimeout(r, 200 * (attempt + 1)));
    }
    this.closed = true;
    if (this.queue.length) this.log.warn({ clicks: this.queue.length }, 'clicks left unwritten at shutdown');
    this.log.info({ clicksAccepted: this.accepted, clicksWritten: this.written }, 'click queue closed');
  }
}
