import { createHmac, timingSafeEqual } from 'node:crypto';

/** Stripe's default tolerance: a signature at most 5 minutes old (and not from further ahead, a clock off by as much). */
export const TOLERANCE_SECONDS = 300;

export type SignatureProblem = 'missing' | 'malformed' | 'stale' | 'mismatch';

/** `t=…,v1=…,v1=…` as Stripe sends it: the timestamp and every v1 signature (other schemes, such as v0, are ignored). */
export function parseSignatureHeader(header: string): { timestamp: number; signatures: Buffer[] } | undefined {
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) return undefined;
      timestamp = Number(value);
    } else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) {
      signatures.push(Buffer.from(value, 'hex'));
    }
  }
  return timestamp === undefined || signatures.length === 0 ? undefined : { timestamp, signatures };
}

/** Stripe's v1 signature: HMAC-SHA256 keyed with the secret string (whsec_… as is) over `t.` and the body's bytes. */
export function signPayload(secret: string, timestamp: number, body: Buffer): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
}

/**
 * Checks a `Stripe-Signature` header against the raw body, before anything reads the body:
 * any v1 may match (Stripe sends two while a secret is rolled), compared in constant time.
 * Undefined when it holds; else what is wrong.
 */
export function checkSignature(o: { header: string | undefined; body: Buffer; secret: string; nowSeconds: number }): SignatureProblem | undefined {
  if (o.header === undefined || o.header === '') return 'missing';
  const parsed = parseSignatureHeader(o.header);
  if (!parsed) return 'malformed';
  if (Math.abs(o.nowSeconds - parsed.timestamp) > TOLERANCE_SECONDS) return 'stale';
  const expected = signPayload(o.secret, parsed.timestamp, o.body);
  // Every candidate is compared (no early exit): the time taken says nothing about which matched.
  let matched = false;
  for (const given of parsed.signatures) matched = timingSafeEqual(given, expected) || matched;
  return matched ? undefined : 'mismatch';
}
