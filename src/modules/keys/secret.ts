import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** `lt_` followed by 32 random bytes in base64url: 256 bits of entropy, recognisable at a glance. */
export const KEY_PREFIX = 'lt_';
const KEY_RE = /^lt_[A-Za-z0-9_-]{43}$/;
const SHOWN_PREFIX_LENGTH = 11;

export function generateKey(): { key: string; hash: Buffer; prefix: string } {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, hash: hashKey(key), prefix: key.slice(0, SHOWN_PREFIX_LENGTH) };
}

export const isWellFormedKey = (value: string): boolean => KEY_RE.test(value);

export const hashKey = (key: string): Buffer => createHash('sha256').update(key).digest();

export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
