import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62^8 ≈ 2.2e14 ids: unguessable by enumeration, and collisions are rare enough to retry. */
export const SHORT_ID_LENGTH = 8;

/** A random base62 id, without modulo bias (bytes of 248 and up are redrawn). */
export function newShortId(length = SHORT_ID_LENGTH): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue;
      out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

const SHORT_ID_RE = new RegExp(`^[0-9A-Za-z]{${SHORT_ID_LENGTH}}$`);
/** Only ids we could have generated; any other path is an unknown route, not a short link. */
export const isShortId = (value: string): boolean => SHORT_ID_RE.test(value);
