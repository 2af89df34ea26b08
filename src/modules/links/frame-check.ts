import type { IncomingHttpHeaders } from 'node:http';
import { BlockedAddressError, safeHead, type SafeFetchOptions } from '../../infra/safe-fetch.js';

export type FrameVerdict = { ok: true } | { ok: false; reason: 'frame_blocked' | 'unreachable' | 'private_address' };

/** Whether a page's headers let `embedderOrigin` show it in an iframe. Pure, for a table of tests. */
export function allowsFraming(headers: IncomingHttpHeaders, embedderOrigin: string): boolean {
  const xfo = headers['x-frame-options'];
  if (
    xfo &&
    String(xfo)
      .split(',')
      .some((v) => ['deny', 'sameorigin', 'allow-from'].some((w) => v.trim().toLowerCase().startsWith(w)))
  ) {
    return false;
  }
  const csp = headers['content-security-policy'];
  // Node joins repeated headers with ", "; each policy must allow framing on its own.
  const policies = (Array.isArray(csp) ? csp : csp ? [csp] : []).flatMap((v) => v.split(','));
  const embedder = new URL(embedderOrigin);
  for (const policy of policies) {
    for (const directive of policy.split(';')) {
      const [name, ...sources] = directive.trim().split(/\s+/);
      if (name?.toLowerCase() !== 'frame-ancestors') continue;
      if (!sources.some((s) => sourceMatches(s, embedder))) return false;
    }
  }
  return true;
}

function sourceMatches(source: string, embedder: URL): boolean {
  const s = source.toLowerCase();
  if (s === '*') return true;
  if (s === "'none'" || s === "'self'") return false;
  if (/^[a-z][a-z0-9+.-]*:$/.test(s)) return s === embedder.protocol;
  const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*\.)?([^/:]+)(?::(\d+|\*))?/.exec(s);
  if (!m) return false;
  const [, scheme, wildcard, host, port] = m;
  if (scheme && `${scheme}:` !== embedder.protocol) return false;
  const hostOk = wildcard ? embedder.hostname.endsWith(`.${host}`) : embedder.hostname === host;
  const portOk = !port || port === '*' || port === (embedder.port || (embedder.protocol === 'https:' ? '443' : '80'));
  return hostOk && portOk;
}

export type FrameChecker = (url: string) => Promise<FrameVerdict>;

/**
 * Fetches a destination (HEAD, then GET when HEAD is refused) and tells whether it may be
 * shown framed on the short-link origin. Never reaches non-public addresses unless allowed.
 */
export function frameChecker(embedderOrigin: string, options: Partial<SafeFetchOptions> = {}): FrameChecker {
  const o: SafeFetchOptions = { allowPrivate: false, timeoutMs: 4000, maxRedirects: 5, ...options };
  return async (url) => {
    try {
      let res = await safeHead(url, 'HEAD', o);
      if (res.status === 405 || res.status === 501 || res.status >= 500) res = await safeHead(url, 'GET', o);
      return allowsFraming(res.headers, embedderOrigin) ? { ok: true } : { ok: false, reason: 'frame_blocked' };
    } catch (err) {
      return { ok: false, reason: err instanceof BlockedAddressError ? 'private_address' : 'unreachable' };
    }
  };
}
