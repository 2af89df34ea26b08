/**
 * The pure pieces of §12: our Stripe-Signature check against the official `stripe` package in
 * both directions (its signatures pass ours; ours pass its constructEvent), the tolerance, and
 * which values are click ids.
 */
import fc from 'fast-check';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { clickIdIn, cleanText } from '../../../src/modules/stripe/mapping.js';
import { checkSignature, signPayload } from '../../../src/modules/stripe/signature.js';

const stripe = new Stripe('sk_test_signature_only');
const secretArb = fc.stringMatching(/^whsec_[A-Za-z0-9]{16,64}$/);
const now = 1_750_000_000;

describe('checkSignature', () => {
  it('accepts exactly what the stripe package signs, within 5 minutes either way', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), secretArb, fc.integer({ min: -300, max: 300 }), (payload, secret, skew) => {
        const header = stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: now + skew });
        expect(checkSignature({ header, body: Buffer.from(payload), secret, nowSeconds: now })).toBeUndefined();
      }),
    );
  });

  it('refuses another secret, another body, and a timestamp past the tolerance', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 200 }),
        secretArb,
        secretArb,
        fc.integer({ min: 301, max: 10_000_000 }),
        (payload, secret, other, late) => {
          fc.pre(secret !== other);
          const header = stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: now });
          expect(checkSignature({ header, body: Buffer.from(payload), secret: other, nowSeconds: now })).toBe('mismatch');
          expect(checkSignature({ header, body: Buffer.from(`${payload}x`), secret, nowSeconds: now })).toBe('mismatch');
          expect(checkSignature({ header, body: Buffer.from(payload), secret, nowSeconds: now + late })).toBe('stale');
          expect(checkSignature({ header, body: Buffer.from(payload), secret, nowSeconds: now - late })).toBe('stale');
        },
      ),
    );
  });

  it('signs as Stripe does: the stripe package verifies our signature', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 }), { maxKeys: 5 }), secretArb, (data, secret) => {
        const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'x', data: { object: data } });
        const t = Math.floor(Date.now() / 1000);
        const header = `t=${t},v1=${signPayload(secret, t, Buffer.from(payload)).toString('hex')}`;
        expect(stripe.webhooks.constructEvent(payload, header, secret).id).toBe('evt_1');
      }),
    );
  });

  it('a missing or malformed header', () => {
    const body = Buffer.from('{}');
    expect(checkSignature({ header: undefined, body, secret: 'whsec_x', nowSeconds: now })).toBe('missing');
    for (const header of ['t=1', 'v1=' + 'a'.repeat(64), `t=abc,v1=${'a'.repeat(64)}`, `t=1,t=2,v1=${'a'.repeat(64)}`, `t=${now},v1=xyz`, 'garbage']) {
      expect(checkSignature({ header, body, secret: 'whsec_x', nowSeconds: now }), header).toBe('malformed');
    }
  });
});

describe('clickIdIn', () => {
  it('a UUID, or ltid_<uuid>, lower-cased; nothing else', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.boolean(), fc.boolean(), (id, prefixed, upper) => {
        const written = `${prefixed ? 'ltid_' : ''}${upper ? id.toUpperCase() : id}`;
        expect(clickIdIn(written)).toBe(id.toLowerCase());
      }),
    );
    for (const v of [
      undefined,
      null,
      42,
      '',
      'user_8812',
      'ltid_',
      'ltid_user',
      `x${'0'.repeat(36)}`,
      'LTID_6f1c1a52-3f5e-4a53-9d39-1e8b9f6a1c11',
      '6f1c1a52-3f5e-4a53-9d39-1e8b9f6a1c11 ',
    ]) {
      expect(clickIdIn(v), String(v)).toBeUndefined();
    }
  });
});

describe('cleanText', () => {
  it('keeps only storable text of at most 100 characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 150 }), (s) => {
        const cleaned = cleanText(s);
        if (cleaned === undefined) return;
        expect([...cleaned].length).toBeLessThanOrEqual(100);
        expect(cleaned).toBe(cleaned.trim());
        expect(cleaned).not.toMatch(/[\p{Cc}\p{Cs}]/u);
        expect(cleaned.isWellFormed()).toBe(true);
      }),
      { numRuns: 50 },
    );
  });
});
