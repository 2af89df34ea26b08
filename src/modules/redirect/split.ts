import { createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import type { RedirectTest } from '../links/service.js';

/*
 * Which variant of a link's A/B test a visitor gets (operations.md §20), with no server state:
 * the variant a cookie `lt_t_<shortId>` = `<testId>.<index>` names while its test id is the
 * running test's, else the weighted bucket of HMAC-SHA256 (a key derived from SECRET) over the
 * test id, the address and the user agent, mod 100. The same visitor therefore gets the same
 * variant with or without cookies, on every instance.
 */

/** How long the cookie keeps a visitor's variant. */
export const SPLIT_COOKIE_SECONDS = 7 * 86_400;

/** The key of the visitor hash, derived from SECRET for this one purpose. */
export function splitKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', secret, 'linktrail', 'ab-test-split-v1', 32)));
}

/** A visitor's bucket 0–99 in a test: the first 48 bits of the HMAC, mod 100 (a bias below 10^-12). */
export function bucketOf(key: KeyObject, testId: string, ip: string, userAgent: string): number {
  return createHmac('sha256', key).update(`${testId}\n${ip}\n${userAgent}`).digest().readUIntBE(0, 6) % 100;
}

/** The variant whose weights hold a bucket: variant i takes [bounds[i-1], bounds[i]). */
export function variantOfBucket(bounds: readonly number[], bucket: number): number {
  for (let i = 0; i < bounds.length; i++) if (bucket < bounds[i]!) return i;
  return bounds.length - 1;
}

/** What a link's test needs per visit, worked out once per cached link (and path). */
interface Memo {
  /** `lt_t_<shortId>=` */
  name: string;
  /** `<testId>.` */
  prefix: string;
  path: string;
  secure: boolean;
  /** The Set-Cookie value of each variant for `path`. */
  cookies: string[];
}
const memos = new WeakMap<RedirectTest, Memo>();

/** A cookie path as a header may carry it: visible ASCII without `;` or `,`, else the root. */
const safePath = (path: string): string => (/^\/[\x21-\x2b\x2d-\x3a\x3c-\x7e]*$/.test(path) ? path : '/');

function memoOf(test: RedirectTest, shortId: string, path: string, secure: boolean): Memo {
  const known = memos.get(test);
  if (known && known.path === path && known.secure === secure) return known;
  const name = `lt_t_${shortId}=`;
  const attributes = `; Path=${safePath(path)}; Max-Age=${SPLIT_COOKIE_SECONDS}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  const memo: Memo = { name, prefix: `${test.id}.`, path, secure, cookies: test.urls.map((_, i) => `${name}${test.id}.${i}${attributes}`) };
  memos.set(test, memo);
  return memo;
}

/**
 * The variant a Cookie header keeps for this test: the value of `lt_t_<shortId>` when it is
 * `<testId>.<index>` of this test and a valid index; else -1. No allocation but on a match.
 */
export function cookieVariant(cookieHeader: string | undefined, name: string, prefix: string, variants: number): number {
  if (!cookieHeader) return -1;
  let at = cookieHeader.indexOf(name);
  while (at !== -1) {
    const before = at === 0 ? 0x3b : cookieHeader.charCodeAt(at - 1);
    // The name at the start of a pair (after `;` and any spaces), not the tail of another name.
    if (before === 0x3b || before === 0x20) {
      const value = at + name.length;
      if (cookieHeader.startsWith(prefix, value)) {
        const digit = cookieHeader.charCodeAt(value + prefix.length) - 0x30;
        const next = cookieHeader.charCodeAt(value + prefix.length + 1);
        // One digit (at most 4 variants), then the end of the pair.
        if (digit >= 0 && digit < variants && (Number.isNaN(next) || next === 0x3b || next === 0x20)) return digit;
      }
      return -1;
    }
    at = cookieHeader.indexOf(name, at + 1);
  }
  return -1;
}

/** The visit's variant and the Set-Cookie to send (undefined when the cookie holds it already). */
export interface Split {
  variant: number;
  cookie: string | undefined;
}

/**
 * A visitor's variant in a running test: the cookie's, else the hash's (and the cookie to keep
 * it). `path` is the short link's path the visitor used (the cookie's Path), `secure` whether
 * that URL is https.
 */
export function splitVisit(
  key: KeyObject,
  test: RedirectTest,
  v: { shortId: string; path: string; secure: boolean; cookie: string | undefined; ip: string; userAgent: string },
): Split {
  const memo = memoOf(test, v.shortId, v.path, v.secure);
  const kept = cookieVariant(v.cookie, memo.name, memo.prefix, test.urls.length);
  if (kept !== -1) return { variant: kept, cookie: undefined };
  const variant = variantOfBucket(test.bounds, bucketOf(key, test.id, v.ip, v.userAgent));
  return { variant, cookie: memo.cookies[variant] };
}
