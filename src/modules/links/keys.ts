import { AppError, invalid } from '../../core/errors.js';
import { UNPREFIXED } from '../../http/api-prefix.js';

/** Longest chosen key (operations.md §21). */
export const MAX_KEY_LENGTH = 190;

const KEY_CHARS = /^[A-Za-z0-9._/-]+$/;

/**
 * First path segments the service serves on the short-link host (§21's list, and the
 * un-prefixed API forms of api-prefix.ts): a key there, or under one, would never be reached.
 * Compared ignoring case, so that `API/x` cannot pass for a key either.
 */
const RESERVED_SEGMENTS = new Set<string>([
  'app',
  'api',
  'admin',
  'docs',
  'apply',
  'embed',
  'oauth',
  'webhooks',
  'internal',
  'healthz',
  'readyz',
  'metrics',
  'attribution.js',
  'favicon.ico',
  '.well-known',
  ...UNPREFIXED,
]);

/**
 * A chosen key as written (case matters): 1–190 characters of a-z A-Z 0-9 - _ . /, no leading,
 * trailing or doubled `/`, no `.` or `..` segment (a browser would resolve those away).
 */
export function parseKey(value: unknown, field: string): string {
  const ok =
    typeof value === 'string' &&
    value.length <= MAX_KEY_LENGTH &&
    KEY_CHARS.test(value) &&
    value.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
  if (!ok) throw invalid(field, 'key_invalid', { limit: MAX_KEY_LENGTH });
  return value;
}

/** Whether a key on the short-link host is (or is under) a path the service serves. */
export const isReservedKey = (key: string): boolean => RESERVED_SEGMENTS.has(key.split('/', 1)[0]!.toLowerCase());

/**
 * The key a visit asks for, from the path after the short-link prefix or the claimed host's `/`:
 * one trailing slash ignored; undefined when it cannot be a key (saves a look-up).
 */
export function keyOfPath(path: string): string | undefined {
  const key = path.endsWith('/') ? path.slice(0, -1) : path;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !KEY_CHARS.test(key)) return undefined;
  return key;
}

/** A 400 about a key or a domain of a write: its own code, naming the item's field (`[2].key`). */
export function keyError(code: 'key_taken' | 'key_reserved' | 'domain_not_active', field: string, params: Record<string, string>): AppError {
  return new AppError(code, { ...params, field, reasonCode: code });
}
