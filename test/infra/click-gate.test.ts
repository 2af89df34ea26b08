import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { countedDecision, RedisClickGate, windowEstimate, windowWeight } from '../../src/infra/click-gate.js';
import { MemoryRateLimiter, WINDOW_MS } from '../../src/http/rate-limit.js';
import { MemoryVisitorMarks } from '../../src/infra/visitor-marks.js';
import { onRedis } from '../helpers/app.js';

// A whole minute, so the two counters' arithmetic is easy to read.
const T0 = Date.UTC(2031, 0, 1, 0, 0, 0);
const s = (seconds: number) => T0 + seconds * 1000;

describe("the browser-tracking windows' estimate", () => {
  test("the last minute's count weighs what of it is still inside the rolling 60 s, rounded up", () => {
    expect(windowWeight(s(0))).toBe(1);
    expect(windowWeight(s(15))).toBe(0.75);
    expect(windowWeight(s(59.999))).toBeCloseTo(1 / 60_000, 10);
    expect(windowEstimate(10, 3, windowWeight(s(15)))).toBe(8 + 3);
    // 10 × 0.7 = 7.000000000000001 in floating point: still 7 would be fine, 8 is the safe side.
    expect(windowEstimate(10, 0, windowWeight(s(18)))).toBeGreaterThanOrEqual(7);
    expect(windowEstimate(59, 0, windowWeight(s(0.5)))).toBe(59);
  });

  test('allowed: the remaining from the estimate, the reset at the end of this minute', () => {
    expect(countedDecision(true, 10, 4, 3, s(30))).toEqual({ allowed: true, limit: 10, remaining: 5, resetAt: s(60) / 1000, retryAfter: 0 });
  });

  test('refused: retryAfter is when the estimate, with no more requests, falls under the limit', () => {
    // Last minute 20, this one 5 at 30 s: 10 + 5 = 15 ≥ 10; free once 20 × weight ≤ 4, at 48 s.
    expect(countedDecision(false, 10, 20, 5, s(30))).toEqual({ allowed: false, limit: 10, remaining: 0, resetAt: s(60) / 1000, retryAfter: 18 });
    // This minute alone is full: free in the next, once 10 × weight ≤ 9, at 66 s.
    expect(countedDecision(false, 10, 0, 10, s(30))).toEqual({ allowed: false, limit: 10, remaining: 0, resetAt: s(60) / 1000, retryAfter: 36 });
    // A limit of 0 (configuration refuses it) still answers, at most two minutes.
    expect(countedDecision(false, 0, 0, 0, s(30)).retryAfter).toBe(120);
  });

  test('for any counts, a request at retryAfter is under the limit, and one a second earlier is not (unless at the floor of 1 s)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.nat(1000),
        fc.nat(1000),
        fc.integer({ min: 0, max: WINDOW_MS - 1 }),
        (limit, previous, current, into) => {
          const now = T0 + into;
          if (windowEstimate(previous, current, windowWeight(now)) < limit) return;
          const { retryAfter } = countedDecision(false, limit, previous, current, now);
          const at = now + retryAfter * 1000;
          // Past this minute the counters move: this minute's becomes the last one's, a new one starts empty.
          const estimateAt = (t: number) =>
            Math.floor(t / WINDOW_MS) === Math.floor(now / WINDOW_MS)
              ? windowEstimate(previous, current, windowWeight(t))
              : Math.floor(t / WINDOW_MS) === Math.floor(now / WINDOW_MS) + 1
                ? windowEstimate(current, 0, windowWeight(t))
                : 0;
          expect(estimateAt(at)).toBeLessThan(limit);
          if (retryAfter > 1) expect(estimateAt(at - 1000)).toBeGreaterThanOrEqual(limit);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe.runIf(onRedis)('the click gate on Redis', () => {
  let redis: Redis;
  let gate: RedisClickGate;
  const limiter = new MemoryRateLimiter();
  const marks = new MemoryVisitorMarks();

  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL!);
    gate = new RedisClickGate(redis, limiter, marks);
  });
  afterAll(async () => {
    await limiter.close();
    await marks.close();
    redis.disconnect();
  });

  test('a burst inside a minute is limited exactly; refused requests count in no window; the other window counts on', async () => {
    const key = randomUUID();
    const windows = [
      { key: `v:${key}`, limit: 3 },
      { key: `s:${key}`, limit: 100 },
    ];
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await gate.admit(windows, undefined, s(10 + i)));
    expect(answers.map((a) => a.windows.map((w) => [w.allowed, w.remaining]))).toEqual([
      [
        [true, 2],
        [true, 99],
      ],
      [
        [true, 1],
        [true, 98],
      ],
      [
        [true, 0],
        [true, 97],
      ],
      [
        [false, 0],
        [true, 96],
      ],
      [
        [false, 0],
        [true, 95],
      ],
    ]);
    // The visitor's three count on into the next minute, fading: under the limit once ceil(3 × weight) ≤ 2, after 80 s.
    expect((await gate.admit(windows, undefined, s(50.5))).windows[0]).toMatchObject({ allowed: false, retryAfter: 30 });
    expect((await gate.admit(windows, undefined, s(70))).windows[0]).toMatchObject({ allowed: false, remaining: 0 });
    // At 81 s: ceil(3 × 39/60) = 2 of them, and this one.
    expect((await gate.admit(windows, undefined, s(81))).windows[0]).toMatchObject({ allowed: true, remaining: 0 });
    // A minute later only the 81 s one is left, fading: ceil(1 × 50/60) = 1, and this one.
    expect((await gate.admit(windows, undefined, s(130))).windows[0]).toMatchObject({ allowed: true, remaining: 1 });
  });

  test('the mark is claimed only when every window allows the request, and the first value stays', async () => {
    const key = randomUUID();
    const windows = [{ key: `v:${key}`, limit: 2 }];
    const mark = (value: string) => ({ key: `m:${key}`, value, ttlMs: 60_000 });
    expect((await gate.admit(windows, mark('first'), s(1))).mark).toBe('first');
    expect((await gate.admit(windows, mark('second'), s(2))).mark).toBe('first');
    const refused = await gate.admit(windows, mark('third'), s(3));
    expect(refused.windows[0]!.allowed).toBe(false);
    expect(refused.mark).toBeUndefined();
  });

  test('a counter lives two minutes in Redis: read as the last minute during the next, then gone', async () => {
    const key = randomUUID();
    const now = Date.now();
    await gate.admit([{ key: `v:${key}`, limit: 5 }], undefined, now);
    const ttl = await redis.pttl(`lt:cw:v:${key}:${Math.floor(now / WINDOW_MS)}`);
    expect(ttl).toBeGreaterThan(WINDOW_MS);
    expect(ttl).toBeLessThanOrEqual(2 * WINDOW_MS);
  });
});
