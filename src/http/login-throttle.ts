import { createHash } from 'node:crypto';
import { setTimeout as wait } from 'node:timers/promises';
import ipaddr from 'ipaddr.js';
import { AppError } from '../core/errors.js';
import type { FailureCounter } from './failure-counter.js';

/**
 * Login throttling (operations.md §7 Passwords): growing delays, then 429, never a locked account.
 *
 * Failures are counted in a window (15 min after the latest failure) three ways:
 * - account + address: the attacker guessing one account from one place. Refused at 10.
 * - address alone: one place spraying many accounts. Refused at 50 (room for an office behind NAT).
 * - account alone: many places guessing one account. Only ever delays, never refuses, so
 *   nobody elsewhere can lock the owner out; the owner waits at most maxDelayMs.
 * Before each attempt the larger of the pair and account counts n sets a delay: none while
 * n < 3, then 250 ms × 2^(n−3) (250, 500, 1000, 2000), at most 4000 ms.
 * A success clears the pair only: the address and account counts still describe an attack.
 * IPv6 addresses count by their /64, which one client usually holds whole.
 */
export interface ThrottleOptions {
  windowMs: number;
  pairLimit: number;
  addressLimit: number;
  freeFailures: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = {
  windowMs: 15 * 60_000,
  pairLimit: 10,
  addressLimit: 50,
  freeFailures: 3,
  baseDelayMs: 250,
  maxDelayMs: 4000,
};

/** The wait before an attempt after `failures` recent failures. */
export function loginDelayMs(failures: number, opts: ThrottleOptions = DEFAULT_THROTTLE): number {
  if (failures < opts.freeFailures) return 0;
  return Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** (failures - opts.freeFailures));
}

/** What counts as one client address: IPv4 as is (also when IPv4-mapped), IPv6 by its /64. */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address.slice(0, 64);
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const hextets = (ip as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${hextets.join(':')}::/64`;
}

/** The email never reaches the store, only its hash. */
function accountKey(account: string): string {
  return createHash('sha256').update(account.toLowerCase()).digest('hex');
}

export class LoginThrottle {
  private readonly opts: ThrottleOptions;

  constructor(
    private readonly counter: FailureCounter,
    opts: Partial<ThrottleOptions> = {},
    private readonly sleep: (ms: number) => Promise<void> = (ms) => wait(ms),
  ) {
    this.opts = { ...DEFAULT_THROTTLE, ...opts };
  }

  private keys(account: string, address: string) {
    const a = accountKey(account);
    const ip = addressKey(address);
    return { pair: `pair:${a}:${ip}`, address: `addr:${ip}`, account: `acct:${a}` };
  }

  /** This throttle for one address, read at `clock`: what a password re-check (enrolment, a second factor) takes. */
  forAddress(address: string, clock: () => Date): { before(account: string): Promise<void>; failed(account: string): Promise<void> } {
    return { before: (account) => this.before(account, address, clock().getTime()), failed: (account) => this.failed(account, address, clock().getTime()) };
  }

  /** Call before checking the password: throws login_throttled (429) or waits the delay. */
  async before(account: string, address: string, nowMs: number): Promise<void> {
    const keys = this.keys(account, address);
    const [pair, byAddress, byAccount] = await Promise.all([
      this.counter.count(keys.pair, nowMs),
      this.counter.count(keys.address, nowMs),
      this.counter.count(keys.account, nowMs),
    ]);
    const full = [...(pair >= this.opts.pairLimit ? [keys.pair] : []), ...(byAddress >= this.opts.addressLimit ? [keys.address] : [])];
    if (full.length > 0) {
      const waits = await Promise.all(full.map((key) => this.counter.expiresIn(key, nowMs)));
      const retryAfter = Math.max(1, Math.ceil(Math.max(...waits) / 1000));
      throw new AppError('login_throttled', { retryAfter }, { retryAfter });
    }
    const delay = loginDelayMs(Math.max(pair, byAccount), this.opts);
    if (delay > 0) await this.sleep(delay);
  }

  /**
   * A public form's attempts (an application), counted per address as sign-in's failures are —
   * every attempt counts, in the same window after the latest — under `kind`, apart from
   * sign-in's: refused at `limit` with 429 `code` and its retryAfter.
   */
  async attempt(kind: string, address: string, o: { limit: number; code: 'apply_throttled' }, nowMs: number): Promise<void> {
    const key = `${kind}:addr:${addressKey(address)}`;
    if ((await this.counter.count(key, nowMs)) >= o.limit) {
      const retryAfter = Math.max(1, Math.ceil((await this.counter.expiresIn(key, nowMs)) / 1000));
      throw new AppError(o.code, { retryAfter }, { retryAfter });
    }
    await this.counter.add(key, this.opts.windowMs, nowMs);
  }

  async failed(account: string, address: string, nowMs: number): Promise<void> {
    const keys = this.keys(account, address);
    await Promise.all([keys.pair, keys.address, keys.account].map((key) => this.counter.add(key, this.opts.windowMs, nowMs)));
  }

  async succeeded(account: string, address: string): Promise<void> {
    await this.counter.clear(this.keys(account, address).pair);
  }
}
