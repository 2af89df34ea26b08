import { invalid } from './errors.js';

/** The longest URL the API stores, counted after normalisation. */
export const URL_MAX_LENGTH = 4096;

export type UrlVerdict =
  { ok: true; href: string } | { ok: false; reason: 'https_required' | 'url_characters' } | { ok: false; reason: 'max_length'; limit: number };

/** True if `s` holds a C0 control (CR, LF, TAB, NUL…), DEL or a C1 control. */
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x1f || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}
/** What a `Location` header may carry: visible ASCII only. */
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/**
 * The one rule for every URL the API stores: an absolute https URL with a host, kept in its
 * WHATWG-normalised form (`new URL(value).href`: scheme and host lower-cased, `https:host`
 * completed to `https://host/`, default port and dot segments removed, an internationalised
 * host in punycode, path, query and fragment percent-encoded). Control characters and
 * whitespace at either end are refused rather than silently stripped by the parser, and so
 * are lone surrogates. The result is visible ASCII, safe to send as a `Location` as it is.
 */
export function checkHttpsUrl(value: unknown, maxLength = URL_MAX_LENGTH): UrlVerdict {
  if (typeof value !== 'string') return { ok: false, reason: 'https_required' };
  if (hasControl(value) || value.trim() !== value || !value.isWellFormed()) return { ok: false, reason: 'url_characters' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: 'https_required' };
  }
  const href = url.href;
  if (url.protocol !== 'https:' || url.hostname === '' || !VISIBLE_ASCII.test(href)) return { ok: false, reason: 'https_required' };
  if (href.length > maxLength) return { ok: false, reason: 'max_length', limit: maxLength };
  return { ok: true, href };
}

/** The normalised form of a URL field, or the 400 naming `field`. */
export function httpsUrl(value: unknown, field: string, maxLength = URL_MAX_LENGTH): string {
  const verdict = checkHttpsUrl(value, maxLength);
  if (verdict.ok) return verdict.href;
  throw verdict.reason === 'max_length' ? invalid(field, 'max_length', { limit: verdict.limit }) : invalid(field, verdict.reason);
}
