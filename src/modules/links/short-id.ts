import { randomBytes } from 'node:crypto';
import { UNPREFIXED } from '../../http/api-prefix.js';

/** Paths of the service itself: a generated short id never takes one (compared ignoring case). */
const RESERVED = new Set<string>([
  ...UNPREFIXED,
  'api',
  'admin',
  'oauth',
  'app',
  'docs',
  'healthz',
  'readyz',
  'attribution',
  'well-known',
  'setup',
  'login',
  'logout',
]);

export const isReservedShortId = (id: string): boolean => RESERVED.has(id.toLowerCase());

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62^8 ≈ 2.2e14 ids: unguessable by enumeration, and collisions are rare enough to retry. */
export const SHORT_ID_LENGTH = 8;

/** A random base62 id, without modulo bias (bytes of 248 and up are redrawn), never a reserved name. */
export function newShortId(length = SHORT_ID_LENGTH, random: (n: number) => Uint8Array = randomBytes): string {
  for (;;) {
    const id = drawId(length, random);
    if (!isReservedShortId(id)) return id;
  }
}

function drawId(length: number, random: (n: number) => Uint8Array): string {
  let out = '';
  while (out.length < length) {
    for (const byte of random(length * 2)) {
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
