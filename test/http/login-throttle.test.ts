import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { statusOf } from '../../src/http/errors.js';
import { MemoryFailureCounter, RedisFailureCounter, type FailureCounter } from '../../src/http/failure-counter.js';
import { addressKey, LoginThrottle, loginDelayMs, type ThrottleOptions } from '../../src/http/login-throttle.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

const WINDOW = 15 * 60_000;
/** Delays before attempts made after 0, 1, 2 … 9 failures. */
const GROWING = [0, 0, 0, 250, 500, 1000, 2000, 4000, 4000, 4000];

/** Unique per test and per run, so runs on a shared Redis never meet. */
const newAccount = () => `user-${randomUUID()}@example.test`;
/** A random IPv6 /64 of its own: addresses count by /64. */
const newAddress = () => `${`fd${randomBytes(7).toString('hex')}`.match(/.{4}/g)!.join(':')}::1`;

/** A throttle whose delays are recorded instead of waited. */
function recorded(counter: FailureCounter, opts: Partial<ThrottleOptions> = {}) {
  const sleeps: number[] = [];
  const throttle = new LoginThrottle(counter, opts, async (ms) => void sleeps.push(ms));
  /** Runs before() and answers the delay it asked for (0 when none). */
  const attempt = async (account: string, address: string, nowMs: number) => {
    const before = sleeps.length;
    await throttle.before(account, address, nowMs);
    expect(sleeps.length - before).toBeLessThanOrEqual(1);
    return sleeps.length > before ? sleeps.at(-1)! : 0;
  };
  return { throttle, attempt, sleeps };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'expected login_throttled').toBeInstanceOf(AppError);
  const appError = err as AppError;
  expect(appError.code).toBe('login_throttled');
  expect(statusOf(appError.code)).toBe(429);
  expect(appError.params.retryAfter).toBe(appError.extra.retryAfter);
  return appError;
}

/**
 * The policy, the same on every counter. `now()` is the clock handed to the throttle; on Redis
 * counts expire by Redis's own clock, so it is the real time there.
 */
function policy(makeCounter: () => FailureCounter, now: () => number, fullRetryAfter: (s: number) => void) {
  let counter: FailureCounter;
  beforeAll(() => {
    counter = makeCounter();
  });
  afterAll(async () => {
    await counter.close();
  });

  test('delays grow from the fourth attempt, double, cap at 4 s; the 11th attempt of a pair is refused with retryAfter', async () => {
    const { throttle, attempt } = recorded(counter);
    const account = newAccount();
    const address = newAddress();
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      delays.push(await attempt(account, address, now()));
      await throttle.failed(account, address, now());
    }
    expect(delays).toEqual(GROWING);
    const err = await refusal(throttle.before(account, address, now()));
    fullRetryAfter(err.extra.retryAfter!);
    // Asking again changes nothing: only failed() counts.
    await refusal(throttle.before(account, address, now()));
  });

  test('another address for the same account is only delayed, never refused, however many failures the account has', async () => {
    const { throttle, attempt } = recorded(counter);
    const account = newAccount();
    const attacker = newAddress();
    for (let i = 0; i < 10; i++) await throttle.failed(account, attacker, now());
    await refusal(throttle.before(account, attacker, now()));
    // Attackers spread over many addresses pile up the account-wide count well past every limit.
    for (let i = 0; i < 60; i++) await throttle.failed(account, newAddress(), now());
    const owner = newAddress();
    expect(await attempt(account, owner, now())).toBe(4000);
    expect(await attempt(account, owner, now())).toBe(4000);
  });

  test('the account-wide count delays a fresh address as the pair count would', async () => {
    const { throttle, attempt } = recorded(counter);
    const account = newAccount();
    for (let i = 0; i < 5; i++) await throttle.failed(account, newAddress(), now());
    expect(await attempt(account, newAddress(), now())).toBe(loginDelayMs(5));
    expect(loginDelayMs(5)).toBe(1000);
  });

  test('a success clears the pair: ten more failures before a refusal (the account count still delays)', async () => {
    const { throttle, attempt } = recorded(counter);
    const account = newAccount();
    const address = newAddress();
    for (let i = 0; i < 9; i++) await throttle.failed(account, address, now());
    expect(await attempt(account, address, now())).toBe(4000);
    await throttle.succeeded(account, address);
    // Nine account-wide failures remain, so the delay stays; the pair starts again from zero.
    for (let i = 0; i < 10; i++) {
      expect(await attempt(account, address, now())).toBe(4000);
      await throttle.failed(account, address, now());
    }
    await refusal(throttle.before(account, address, now()));
  });

  test('50 failures from one address over many accounts: the address is refused, also for an account it never tried', async () => {
    const { throttle, attempt, sleeps } = recorded(counter);
    const address = newAddress();
    for (let i = 0; i < 50; i++) {
      const account = newAccount();
      await throttle.before(account, address, now());
      await throttle.failed(account, address, now());
    }
    // The address count refuses but never delays: one failure per account stayed under every delay.
    expect(sleeps).toEqual([]);
    await refusal(throttle.before(newAccount(), address, now()));
    // Another address is untouched.
    expect(await attempt(newAccount(), newAddress(), now())).toBe(0);
  });

  test('addresses in one IPv6 /64 count as one client; IPv4-mapped IPv6 counts as its IPv4', async () => {
    const { throttle } = recorded(counter, { pairLimit: 2 });
    const account = newAccount();
    const prefix = newAddress().replace(/::1$/, '');
    await throttle.failed(account, `${prefix}::1`, now());
    await throttle.failed(account, `${prefix}:ffff:ffff:ffff:fffe`, now());
    await refusal(throttle.before(account, `${prefix}:1:2:3:4`, now()));

    const v4 = `10.${randomBytes(3).join('.')}`;
    await throttle.failed(account, v4, now());
    await throttle.failed(account, `::ffff:${v4}`, now());
    await refusal(throttle.before(account, v4, now()));
    expect(addressKey(`::ffff:${v4}`)).toBe(v4);
  });

  test('the account is stored only as a hash, and emails differing in case are one account', async () => {
    const { throttle } = recorded(counter, { pairLimit: 2 });
    const account = newAccount();
    const address = newAddress();
    await throttle.failed(account, address, now());
    await throttle.failed(account.toUpperCase(), address, now());
    await refusal(throttle.before(account, address, now()));
    const hash = createHash('sha256').update(account).digest('hex');
    expect(await counter.count(`acct:${hash}`, now())).toBe(2);
    expect(await counter.count(`acct:${account}`, now())).toBe(0);
  });
}

describe('LoginThrottle on MemoryFailureCounter', () => {
  const T0 = Date.UTC(2040, 0, 1);
  policy(
    () => new MemoryFailureCounter(),
    () => T0,
    // The clock stands still: the window is whole.
    (retryAfter) => expect(retryAfter).toBe(WINDOW / 1000),
  );

  test('the window runs 15 min from the latest failure; retryAfter counts down to it', async () => {
    const counter = new MemoryFailureCounter();
    const { throttle, attempt } = recorded(counter);
    const account = newAccount();
    const address = newAddress();
    for (let i = 0; i < 9; i++) await throttle.failed(account, address, T0);
    // The tenth failure 10 min later keeps all ten alive until 25 min.
    await throttle.failed(account, address, T0 + 10 * 60_000);
    expect((await refusal(throttle.before(account, address, T0 + 20 * 60_000))).extra.retryAfter).toBe(300);
    expect((await refusal(throttle.before(account, address, T0 + 25 * 60_000 - 400))).extra.retryAfter).toBe(1);
    expect(await attempt(account, address, T0 + 25 * 60_000)).toBe(0);
    await counter.close();
  });

  test('expired entries are swept and the number of keys is capped, so memory stays bounded', async () => {
    const counter = new MemoryFailureCounter(3);
    for (let i = 0; i < 5; i++) await counter.add(`k${i}`, 1000, T0 + i);
    expect(counter.size).toBe(3);
    // The stalest were forgotten, the latest kept.
    expect(await counter.count('k0', T0 + 10)).toBe(0);
    expect(await counter.count('k4', T0 + 10)).toBe(1);
    counter.sweep(T0 + 1003);
    expect(counter.size).toBe(1);
    counter.sweep(T0 + 1004);
    expect(counter.size).toBe(0);
    await counter.close();
  });

  test('the default delay is a timer: the event loop keeps running while a login waits', async () => {
    const counter = new MemoryFailureCounter();
    const throttle = new LoginThrottle(counter, { freeFailures: 0, baseDelayMs: 120 });
    // A 1 ms timer set before the login fires while it waits; with no wait, or a blocking one,
    // the login would end first.
    const order: string[] = [];
    const timer = setTimeout(() => order.push('timer'), 1);
    await throttle.before(newAccount(), newAddress(), T0);
    order.push('login');
    clearTimeout(timer);
    expect(order).toEqual(['timer', 'login']);
    await counter.close();
  });
});

describe('RedisFailureCounter with Redis unreachable', () => {
  test('falls back to counting in process without throwing, and warns once per outage', async () => {
    const redis = new Redis({ host: '127.0.0.1', port: 1, enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true });
    redis.on('error', () => undefined);
    const warnings: string[] = [];
    const counter = new RedisFailureCounter(redis, { warn: (_o, m) => void warnings.push(m) });
    const { throttle, attempt } = recorded(counter);
    const account = newAccount();
    const address = newAddress();
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      delays.push(await attempt(account, address, Date.now()));
      await throttle.failed(account, address, Date.now());
    }
    expect(delays).toEqual(GROWING);
    expect((await refusal(throttle.before(account, address, Date.now()))).extra.retryAfter).toBeGreaterThanOrEqual(899);
    await throttle.succeeded(account, address);
    expect(await attempt(account, address, Date.now())).toBe(4000); // the account count remains
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/Redis unavailable/);
    await counter.close();
    redis.disconnect();
  });
});

describe.skipIf(!process.env.REDIS_URL)('LoginThrottle on RedisFailureCounter (real Redis)', () => {
  const url = process.env.REDIS_URL!;
  const clients: Redis[] = [];
  const log = { warn: (o: object, m: string) => void [o, m] };
  const connect = () => {
    const redis = new Redis(url, { maxRetriesPerRequest: 1 });
    clients.push(redis);
    return redis;
  };
  afterAll(() => {
    for (const c of clients) c.disconnect();
  });

  policy(
    () => new RedisFailureCounter(connect(), log),
    () => Date.now(),
    // Redis's clock runs: a moment of the window may have passed.
    (retryAfter) => {
      expect(retryAfter).toBeGreaterThanOrEqual(WINDOW / 1000 - 2);
      expect(retryAfter).toBeLessThanOrEqual(WINDOW / 1000);
    },
  );

  test('counts live under lt:lf: and expire windowMs after the latest failure', async () => {
    const redis = connect();
    const counter = new RedisFailureCounter(redis, log);
    const { throttle, attempt } = recorded(counter, { windowMs: 800, pairLimit: 2 });
    const account = newAccount();
    const address = newAddress();
    const hash = createHash('sha256').update(account).digest('hex');
    await throttle.failed(account, address, Date.now());
    await sleepFor(300);
    // The second failure restarts the window for the pair.
    await throttle.failed(account, address, Date.now());
    const ttl = await redis.pttl(`lt:lf:acct:${hash}`);
    expect(ttl).toBeGreaterThan(600);
    expect(ttl).toBeLessThanOrEqual(800);
    expect(await redis.get(`lt:lf:acct:${hash}`)).toBe('2');
    await sleepFor(400); // 700 ms after the first failure, 400 ms after the latest
    await refusal(throttle.before(account, address, Date.now()));
    await sleepFor(550); // 850 ms after the latest failure
    expect(await attempt(account, address, Date.now())).toBe(0);
    expect(await redis.exists(`lt:lf:acct:${hash}`, `lt:lf:pair:${hash}:${addressKey(address)}`)).toBe(0);
    await counter.close();
  });

  test('two instances (two counters, two connections) count as one service', async () => {
    const a = recorded(new RedisFailureCounter(connect(), log));
    const b = recorded(new RedisFailureCounter(connect(), log));
    const account = newAccount();
    const address = newAddress();
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      const self = i % 2 === 0 ? a : b;
      delays.push(await self.attempt(account, address, Date.now()));
      await self.throttle.failed(account, address, Date.now());
    }
    expect(delays).toEqual(GROWING);
    await refusal(a.throttle.before(account, address, Date.now()));
    await refusal(b.throttle.before(account, address, Date.now()));
    // A success on one instance frees the pair on the other.
    await b.throttle.succeeded(account, address);
    await a.throttle.before(account, address, Date.now());
  });

  test('an outage falls back in process (warned once), and the shared counts return with Redis (logged)', async () => {
    const real = new URL(url);
    const proxy = TcpProxy.to(real, 6379);
    await proxy.start();
    const redis = new Redis(proxy.url(real), { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    redis.on('error', () => undefined);
    await new Promise((resolve) => redis.once('ready', resolve));
    const logged: string[] = [];
    const counter = new RedisFailureCounter(redis, { warn: (_o, m) => void logged.push(`warn ${m}`), info: (m) => void logged.push(`info ${m}`) });
    const { throttle, attempt } = recorded(counter);
    const account = newAccount();
    const address = newAddress();
    for (let i = 0; i < 4; i++) await throttle.failed(account, address, Date.now());
    expect(await attempt(account, address, Date.now())).toBe(500);

    await proxy.stop();
    // Shared counts are out of reach: failures count again from zero in process, never a throw.
    expect(await attempt(account, address, Date.now())).toBe(0);
    for (let i = 0; i < 10; i++) await throttle.failed(account, address, Date.now());
    await refusal(throttle.before(account, address, Date.now()));
    expect(logged.filter((l) => l.startsWith('warn'))).toHaveLength(1);

    await proxy.start();
    for (let i = 0; i < 100 && redis.status !== 'ready'; i++) await sleepFor(20);
    expect(redis.status).toBe('ready');
    // Back on the shared counts: the four failures made before the outage.
    expect(await attempt(account, address, Date.now())).toBe(500);
    expect(logged).toEqual([expect.stringMatching(/^warn .*Redis unavailable/), expect.stringMatching(/^info .*Redis is back/)]);
    await counter.close();
    redis.disconnect();
    await proxy.stop();
  });
});
