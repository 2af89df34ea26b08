/**
 * The replica's lag in time (db/replica-lag.ts): as far behind as the oldest primary position it
 * has not replayed. The router itself runs against a real replica in test/e2e/replica.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lagMs, lsnValue, pruneSamples, type LsnSample } from '../../src/db/replica-lag.js';

describe('lsnValue', () => {
  it('orders WAL positions as PostgreSQL does', () => {
    expect(lsnValue('0/0')).toBe(0n);
    expect(lsnValue('0/16B3748')).toBe(0x16b3748n);
    expect(lsnValue('1/0') > lsnValue('0/FFFFFFFF')).toBe(true);
    expect(lsnValue('16/b374d848')).toBe((0x16n << 32n) | 0xb374d848n);
  });

  it('refuses what is not a position', () => {
    for (const bad of ['', '0', '0/', '/1', 'G/1', '1/2/3', '123456789/0']) expect(() => lsnValue(bad)).toThrow(/not a WAL position/);
  });

  it('orders any two positions as their halves do', () => {
    const half = fc.integer({ min: 0, max: 0xffffffff });
    fc.assert(
      fc.property(half, half, half, half, (a, b, c, d) => {
        const text = (x: number, y: number) => `${x.toString(16).toUpperCase()}/${y.toString(16).toUpperCase()}`;
        const expected = a !== c ? a < c : b < d;
        expect(lsnValue(text(a, b)) < lsnValue(text(c, d))).toBe(expected);
      }),
    );
  });
});

describe('lagMs', () => {
  const samples: LsnSample[] = [
    { at: 1000, lsn: 100n },
    { at: 2000, lsn: 150n },
    { at: 3000, lsn: 150n },
    { at: 4000, lsn: 300n },
  ];

  it('is 0 when the replica has replayed the newest position', () => {
    expect(lagMs(samples, 300n, 9000)).toBe(0);
    expect(lagMs(samples, 999n, 9000)).toBe(0);
    expect(lagMs([], 0n, 9000)).toBe(0);
  });

  it('counts from the oldest position not yet replayed, not from the newest', () => {
    expect(lagMs(samples, 299n, 4500)).toBe(500);
    expect(lagMs(samples, 149n, 4500)).toBe(2500); // 150 was there at 2000
    expect(lagMs(samples, 99n, 6000)).toBe(5000);
  });

  it('grows with the time of a replica that replays nothing, and never shrinks as samples are added', () => {
    // A model: the primary moves on at random; the replica replays up to some point and stops.
    const step = fc.record({ dt: fc.integer({ min: 1, max: 2000 }), grow: fc.integer({ min: 0, max: 50 }) });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), fc.nat(40), (steps, stopAfter) => {
        const taken: LsnSample[] = [];
        let at = 0;
        let lsn = 0n;
        let previous = 0;
        const replayed = (() => {
          let l = 0n;
          steps.slice(0, stopAfter).forEach((s) => (l += BigInt(s.grow)));
          return l;
        })();
        for (const s of steps) {
          at += s.dt;
          lsn += BigInt(s.grow);
          taken.push({ at, lsn });
          const lag = lagMs(taken, replayed, at);
          expect(lag).toBeGreaterThanOrEqual(previous);
          const first = taken.find((t) => t.lsn > replayed);
          expect(lag).toBe(first ? at - first.at : 0);
          previous = lag;
        }
      }),
    );
  });
});

describe('pruneSamples', () => {
  it('keeps what can tell a lag of up to keepMs, and the sample just before', () => {
    const samples = [0, 1000, 2000, 3000, 4000, 5000].map((at) => ({ at, lsn: BigInt(at) }));
    expect(pruneSamples(samples, 5000, 2500).map((s) => s.at)).toEqual([2000, 3000, 4000, 5000]);
    expect(pruneSamples(samples, 5000, 60_000)).toBe(samples);
  });

  it('changes no lag up to keepMs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 1, maxLength: 50 }),
        fc.integer({ min: 1000, max: 20_000 }),
        fc.nat(200),
        (gaps, keepMs, replayedAt) => {
          let at = 0;
          const samples = gaps.map((g, i) => ({ at: (at += g), lsn: BigInt(i + 1) }));
          const now = at;
          const kept = pruneSamples(samples, now, keepMs);
          const replayed = BigInt(Math.min(replayedAt, samples.length));
          const full = lagMs(samples, replayed, now);
          const pruned = lagMs(kept, replayed, now);
          if (full <= keepMs) expect(pruned).toBe(full);
          else expect(pruned).toBeGreaterThanOrEqual(keepMs);
        },
      ),
    );
  });
});
