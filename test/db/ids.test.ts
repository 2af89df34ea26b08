import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { v7 } from 'uuid';
import { idAt, isUuid, newId } from '../../src/db/ids.js';

/** The milliseconds a v7 id carries in its first 48 bits. */
const msOf = (id: string): number => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

describe('ids', () => {
  test('are RFC 9562 version 7 UUIDs carrying the time they were made at, never earlier than the last', () => {
    const start = Date.now();
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1e9 }), { minLength: 1, maxLength: 20 }), (offsets) => {
        let last = '';
        for (const offset of offsets) {
          const id = idAt(start + offset);
          expect(isUuid(id)).toBe(true);
          expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
          expect(msOf(id)).toBeGreaterThanOrEqual(start + offset);
          expect(id > last).toBe(true);
          last = id;
        }
      }),
    );
  });

  test('have the same layout as the uuid package’s v7 for the same time', () => {
    const ms = Date.now() + 2e9;
    const ours = idAt(ms);
    const theirs = v7({ msecs: ms });
    expect(ours.slice(0, 15)).toBe(theirs.slice(0, 15));
    expect(ours[19]).toMatch(/[89ab]/);
  });

  test('carry the time in their first 48 bits, the version and variant in their place, for any time ahead', () => {
    // Times only ahead of every id made so far: the sequence is process-wide and never goes back.
    let base = Date.now() + 3e9;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 24 + 7 }), (step) => {
        base += step;
        const id = idAt(base);
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(msOf(id)).toBe(base);
        expect(id.slice(0, 15)).toBe(v7({ msecs: base }).slice(0, 15));
      }),
    );
  });

  test('come out in increasing order, within one millisecond too, and never repeat', () => {
    const ids = Array.from({ length: 50_000 }, () => newId());
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    const sameMs = Array.from({ length: 1000 }, () => idAt(0));
    for (let i = 1; i < sameMs.length; i++) expect(sameMs[i]! > sameMs[i - 1]!).toBe(true);
  });

  test('carry random bits: two runs of a million ids share none', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1_000_000; i++) seen.add(newId().slice(-12));
    // 48 random-looking bits per id (the counter's low bits and the random tail): a collision
    // among a million is ~0.2 % likely by chance, a broken pool makes thousands.
    expect(seen.size).toBeGreaterThan(999_990);
  });
});
