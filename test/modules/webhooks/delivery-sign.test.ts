/**
 * The signing of webhooks (src/modules/webhooks/sign.ts) against the standardwebhooks library:
 * whatever the secret, id, timestamp and body, the library verifies what we sign, with each of
 * the active secrets, and refuses it once anything is changed. The Retry-After reading and the
 * retry verdicts are pure and tested here too.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signature, webhookHeaders } from '../../../src/modules/webhooks/sign.js';
import { retryAfterMs, verdict } from '../../../src/modules/webhooks/schedule.js';

const secretArb = fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => `whsec_${Buffer.from(bytes).toString('base64')}`);
const idArb = fc.oneof(
  fc.uuid(),
  fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !/[\s,]/.test(s)),
);
/** The library's verify, on any text (it parses JSON unless told not to). */
const verify = (secret: string, body: string, headers: Record<string, string>) => new Webhook(secret).verify(body, headers, { jsonParse: false });
const bodyArb = fc.oneof(fc.string(), fc.json(), fc.string({ unit: 'grapheme' }));

describe('Standard Webhooks signing', () => {
  it('verifies with the library for any secret, id, body and current timestamp', () => {
    fc.assert(
      fc.property(secretArb, idArb, bodyArb, fc.integer({ min: -200, max: 200 }), (secret, id, body, skew) => {
        const timestamp = Math.floor(Date.now() / 1000) + skew;
        const headers = webhookHeaders([secret], id, timestamp, body);
        expect(headers['webhook-signature']).toBe(new Webhook(secret).sign(id, new Date(timestamp * 1000), body));
        verify(secret, body, headers);
      }),
      { numRuns: 300 },
    );
  });

  it('signs with every active secret: a receiver holding either verifies; another secret or a changed body does not', () => {
    fc.assert(
      fc.property(secretArb, secretArb, secretArb, idArb, bodyArb, fc.string({ minLength: 1 }), (a, b, stranger, id, body, extra) => {
        fc.pre(stranger !== a && stranger !== b);
        const timestamp = Math.floor(Date.now() / 1000);
        const headers = webhookHeaders([a, b], id, timestamp, body);
        expect(headers['webhook-signature'].split(' ')).toEqual([signature(a, id, timestamp, body), signature(b, id, timestamp, body)]);
        verify(a, body, headers);
        verify(b, body, headers);
        if (Buffer.from(stranger.slice(6), 'base64').equals(Buffer.from(a.slice(6), 'base64'))) return;
        if (Buffer.from(stranger.slice(6), 'base64').equals(Buffer.from(b.slice(6), 'base64'))) return;
        expect(() => verify(stranger, body, headers)).toThrow();
        expect(() => verify(a, body + extra, headers)).toThrow();
        expect(() => verify(a, body, { ...headers, 'webhook-id': `${id}x` })).toThrow();
        expect(() => verify(a, body, { ...headers, 'webhook-timestamp': String(timestamp - 1) })).toThrow();
      }),
      { numRuns: 200 },
    );
  });

  it('a timestamp more than 5 minutes old (or ahead) is rejected by the library', () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [now - 301 - 5, now + 301 + 5]) {
      expect(() => new Webhook(secret).verify('{}', webhookHeaders([secret], 'msg_1', timestamp, '{}'))).toThrow(/too (old|new)/);
    }
  });
});

describe('after an attempt', () => {
  const delays = [5_000, 300_000, 1_800_000];
  const now = new Date('2026-11-24T12:00:00Z');
  const at = (statusCode: number | null, retryAfter: string | null = null) => ({ statusCode, retryAfter });

  it('a 2xx succeeds, a 410 is gone, anything else waits its turn of the schedule, then fails', () => {
    expect(verdict(at(204), 1, delays, now)).toEqual({ kind: 'succeeded' });
    expect(verdict(at(410), 1, delays, now)).toEqual({ kind: 'gone' });
    expect(verdict(at(301), 1, delays, now)).toEqual({ kind: 'retry', inMs: 5_000 });
    expect(verdict(at(null), 2, delays, now)).toEqual({ kind: 'retry', inMs: 300_000 });
    expect(verdict(at(500), 3, delays, now)).toEqual({ kind: 'retry', inMs: 1_800_000 });
    expect(verdict(at(500), 4, delays, now)).toEqual({ kind: 'failed' });
  });

  it('honours Retry-After on 429 and 503 when longer, up to the longest wait; not on other statuses', () => {
    expect(verdict(at(429, '120'), 1, delays, now)).toEqual({ kind: 'retry', inMs: 120_000 });
    expect(verdict(at(503, '1'), 1, delays, now)).toEqual({ kind: 'retry', inMs: 5_000 });
    expect(verdict(at(503, '86400'), 1, delays, now)).toEqual({ kind: 'retry', inMs: 1_800_000 });
    expect(verdict(at(503, 'Tue, 24 Nov 2026 12:10:00 GMT'), 1, delays, now)).toEqual({ kind: 'retry', inMs: 600_000 });
    expect(verdict(at(500, '120'), 1, delays, now)).toEqual({ kind: 'retry', inMs: 5_000 });
    expect(verdict(at(429, '120'), 4, delays, now)).toEqual({ kind: 'failed' });
  });

  it('reads Retry-After as seconds or an HTTP date, and ignores anything else', () => {
    expect(retryAfterMs('30', now)).toBe(30_000);
    expect(retryAfterMs('Tue, 24 Nov 2026 11:00:00 GMT', now)).toBe(0);
    for (const bad of [null, '', '-5', '1.5', 'soon', '2026-11-24T12:10:00Z']) expect(retryAfterMs(bad, now)).toBeUndefined();
    fc.assert(
      fc.property(fc.string(), (s) => {
        const ms = retryAfterMs(s, now);
        expect(ms === undefined || (Number.isFinite(ms) && ms >= 0)).toBe(true);
      }),
    );
  });
});
