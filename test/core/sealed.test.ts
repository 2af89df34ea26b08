import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SEAL_PURPOSES, Sealer, type SealPurpose } from '../../src/core/sealed.js';
import { sealV1 } from '../helpers/legacy-seal.js';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const OTHER = 'another-secret-of-at-least-thirty-two-chars';
const purpose = fc.constantFrom(...SEAL_PURPOSES);

const flipFirstByte = (s: string) => {
  const b = Buffer.from(s, 'base64url');
  b[0] = b[0]! ^ 1;
  return b.toString('base64url');
};

describe('Sealer: reversible secrets under SECRET', () => {
  const sealer = new Sealer(SECRET);

  it('opens what it sealed, for any text and purpose, and the sealed form shows none of it', () => {
    fc.assert(
      fc.property(purpose, fc.string({ unit: 'grapheme', minLength: 0, maxLength: 200 }), (p, plain) => {
        const sealed = sealer.seal(p, plain);
        expect(sealed).toMatch(/^s2\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+$/);
        if (plain.length >= 4) expect(sealed).not.toContain(plain);
        expect(sealer.open(p, sealed)).toBe(plain);
        expect(sealer.needsReseal(p, sealed)).toBe(false);
      }),
    );
  });

  it('never opens a value sealed for another purpose (each purpose has its own key)', () => {
    fc.assert(
      fc.property(purpose, purpose, fc.string({ minLength: 1 }), (a, b, plain) => {
        fc.pre(a !== b);
        expect(() => sealer.open(b, sealer.seal(a, plain))).toThrow();
      }),
    );
  });

  it('refuses any altered part', () => {
    const sealed = sealer.seal('webhook-secret', 'whsec_abc');
    const [v, keyId, iv, body, tag] = sealed.split('.') as [string, string, string, string, string];
    for (const altered of [
      [v, keyId, flipFirstByte(iv), body, tag],
      [v, keyId, iv, flipFirstByte(body), tag],
      [v, keyId, iv, body, flipFirstByte(tag)],
      [v, 'AAAAAAAA', iv, body, tag],
      ['s3', keyId, iv, body, tag],
    ]) {
      expect(() => sealer.open('webhook-secret', altered.join('.'))).toThrow();
    }
    expect(() => sealer.open('webhook-secret', 'whsec_abc')).toThrow();
  });

  it('gives a different sealed form each time for the same value', () => {
    const forms = new Set(Array.from({ length: 20 }, () => sealer.seal('totp-seed', 'same')));
    expect(forms.size).toBe(20);
  });
});

describe('Sealer: rotating SECRET', () => {
  const before = new Sealer(OTHER);
  const after = new Sealer(SECRET, OTHER);

  it('opens values sealed under SECRET_PREVIOUS, says they need a reseal, and seals new ones under SECRET', () => {
    for (const p of SEAL_PURPOSES as readonly SealPurpose[]) {
      const old = before.seal(p, `value of ${p}`);
      expect(after.open(p, old)).toBe(`value of ${p}`);
      expect(after.needsReseal(p, old)).toBe(true);
      const resealed = after.seal(p, after.open(p, old));
      expect(after.needsReseal(p, resealed)).toBe(false);
      expect(new Sealer(SECRET).open(p, resealed)).toBe(`value of ${p}`);
    }
  });

  it('refuses a value under a SECRET it does not know', () => {
    expect(() => new Sealer(SECRET).open('stripe-secret', before.seal('stripe-secret', 'whsec_x'))).toThrow(
      expect.objectContaining({ code: 'secret_unopenable' }),
    );
  });

  it('opens link passwords sealed by the first box (v1, no key id), under SECRET or SECRET_PREVIOUS, and marks them for a reseal', () => {
    const legacyNow = sealV1(SECRET, 'hunter2');
    const legacyOld = sealV1(OTHER, 'correct horse');
    expect(after.open('link-password', legacyNow)).toBe('hunter2');
    expect(after.open('link-password', legacyOld)).toBe('correct horse');
    expect(after.needsReseal('link-password', legacyNow)).toBe(true);
    expect(() => new Sealer(SECRET).open('link-password', legacyOld)).toThrow();
    // The legacy form is a link password's only.
    expect(() => after.open('webhook-secret', legacyNow)).toThrow();
  });
});
