import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { SharedStrings } from '../../src/core/shared-strings.js';

describe('shared strings', () => {
  test('gives back an equal value, and keeps one entry per distinct value', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 20 }), { maxLength: 200 }), (values) => {
        const shared = new SharedStrings(1000, 64);
        // Each value as a new string object, as the HTTP parser makes each request's header.
        for (const v of values) expect(shared.get(`${v}|`.slice(0, -1))).toBe(v);
        expect(shared.size).toBe(new Set(values).size);
      }),
    );
  });

  test('past its bound it starts over, and a value longer than its limit is given back unkept', () => {
    const shared = new SharedStrings(3, 10);
    for (const v of ['a', 'b', 'c']) shared.get(v);
    expect(shared.size).toBe(3);
    expect(shared.get('d')).toBe('d');
    expect(shared.size).toBe(1);
    expect(shared.get('x'.repeat(11))).toBe('x'.repeat(11));
    expect(shared.size).toBe(1);
    expect(shared.get('x'.repeat(10))).toBe('x'.repeat(10));
    expect(shared.size).toBe(2);
    // An absent value stays absent and is not kept.
    expect(shared.maybe(undefined)).toBeUndefined();
    expect(shared.maybe('e')).toBe('e');
    expect(shared.size).toBe(3);
  });
});
