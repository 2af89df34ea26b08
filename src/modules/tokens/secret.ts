import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** `ltp_` ("personal") followed by 32 random bytes in base64url: 256 bits, told apart from keys (`lt_`) at a glance. */
export const TOKEN_PREFIX = 'ltp_';
const TOKEN_RE = /^ltp_[A-Za-z0-9_-]{43}$/;
/** What lists show: `ltp_` and 8 characters, enough to recognise a token, far too few to guess it. */
const SHOWN_PREFIX_LENGTH = 12;

export function generateToken(): { token: string; hash: Buffer; prefix: string } {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token), prefix: token.slice(0, SHOWN_PREFIX_LENGTH) };
}

export const isWellFormedToken = (value: string): boolean => TOKEN_RE.test(value);

export const hashToken = (token: string): Buffer => createHash('sha256').update(token).digest();

export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
