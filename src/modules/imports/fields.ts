import { checkHttpsUrl } from '../../core/url-rule.js';
import type { ReasonCode } from '../../i18n/messages.js';

/** A cell's verdict: the cleaned value, or the reason it cannot be imported. */
export type Verdict<T> = { ok: true; value: T } | { ok: false; reason: ReasonCode; params?: Record<string, string | number> };

/**
 * The destination: trimmed, `http://` rewritten to https when asked (refused otherwise, with a
 * reason that says how to import it), then the API's one URL rule (`core/url-rule.ts`).
 */
export function cleanDestination(cell: string, upgradeHttp: boolean): Verdict<string> {
  let url = cell.trim();
  if (url === '') return { ok: false, reason: 'required' };
  if (/^http:/i.test(url)) {
    if (!upgradeHttp) return { ok: false, reason: 'http_not_upgraded' };
    url = `https:${url.slice('http:'.length)}`;
  }
  const verdict = checkHttpsUrl(url);
  if (verdict.ok) return { ok: true, value: verdict.href };
  return verdict.reason === 'max_length' ? { ok: false, reason: 'max_length', params: { limit: verdict.limit } } : { ok: false, reason: verdict.reason };
}

/**
 * An old short URL as an alias is compared (operations.md §13): `https://<host>/<path>`, the host
 * lower-case punycode without port or trailing dot, the path exact (case kept, as the URL parser
 * percent-encodes it), one trailing slash dropped. A scheme-less `bit.ly/abc` (Rebrandly, Bitly
 * ids) is read as https. Query and fragment are not part of an alias. A bare host has no path to
 * alias and is refused.
 */
export function cleanShortUrl(cell: string): Verdict<string> {
  const text = cell.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return { ok: false, reason: 'short_url' };
  }
  const host = url.hostname.replace(/\.$/, '');
  const path = url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname;
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || host === '' || path === '' || /\s/.test(text)) {
    return { ok: false, reason: 'short_url' };
  }
  return { ok: true, value: `https://${host}${path}` };
}

/** The old short URL from a keyword and its domain (Rebrandly's slashtag, Shlink's shortCode…). */
export function shortUrlFrom(keyword: string, domain: string): string | undefined {
  const key = keyword.trim().replace(/^\/+/, '');
  const host = domainName(domain.trim());
  return key && host ? `${host.replace(/^[a-z]+:\/\//i, '').replace(/\/+$/, '')}/${key}` : undefined;
}

/** A domain cell: a name, or a Rebrandly domain object written as JSON (`{"fullName":"rebrand.ly"}`). */
function domainName(cell: string): string {
  if (!cell.startsWith('{')) return cell;
  try {
    const parsed = JSON.parse(cell) as { fullName?: unknown };
    return typeof parsed.fullName === 'string' ? parsed.fullName : '';
  } catch {
    return '';
  }
}

const TAG_ID_RUN = /^\s*[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}(?:\s+[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})+\s*$/i;

/**
 * Tag names separated by `,`, `;` or `|`: trimmed, empty dropped, duplicates (ignoring case) once.
 * Tag ids separated by spaces (the dashboard's links export) are several tags too.
 */
export function splitTags(cell: string): string[] {
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const part of cell.split(/[,;|]/).flatMap((p) => (TAG_ID_RUN.test(p) ? p.trim().split(/\s+/) : [p]))) {
    const name = part.trim();
    const key = name.toLowerCase();
    if (name !== '' && !seen.has(key)) {
      seen.add(key);
      tags.push(name);
    }
  }
  return tags;
}

/** A text cell, trimmed; empty is no value. */
export function text(cell: string | undefined): string | undefined {
  const value = cell?.trim();
  return value ? value : undefined;
}
