import { invalid } from '../../core/errors.js';
import { normalizeHost } from '../domains/service.js';

/** An old short URL of a link, as stored: the host's canonical form and the exact path. */
export interface Alias {
  host: string;
  path: string;
}

export const MAX_ALIASES = 100;
const MAX_PATH = 2048;
const NONE = new Set<string>();

/**
 * The alias path a request or a stored alias compares by: exact (case matters), one trailing
 * slash ignored. Used by the link writes and by the redirect alike.
 */
export const aliasPath = (path: string): string => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);

/** How the Link record shows an alias. */
export const aliasUrl = (a: Alias): string => `https://${a.host}${a.path}`;

/**
 * One alias of a write: an absolute http(s) URL with a host and a path, no query, fragment,
 * credentials or port; the path percent-encoded as the URL parser does (what a browser sends).
 */
export function parseAlias(value: unknown, field: string): Alias {
  let url: URL | undefined;
  try {
    if (typeof value === 'string' && !value.includes('?') && !value.includes('#')) url = new URL(value);
  } catch {
    /* refused below */
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.port) throw invalid(field, 'alias_invalid');
  const path = aliasPath(url.pathname);
  const host = normalizeHost(url.hostname, NONE);
  if (!host.ok || path === '/' || path.length > MAX_PATH) throw invalid(field, 'alias_invalid');
  return { host: host.host, path };
}

/** A link's alias list: each parsed, none twice. */
export function parseAliases(value: unknown, field: string): Alias[] {
  if (!Array.isArray(value)) throw invalid(field, 'type', { type: 'array' });
  if (value.length > MAX_ALIASES) throw invalid(field, 'max_items', { limit: MAX_ALIASES });
  const seen = new Map<string, number>();
  return value.map((v, j) => {
    const a = parseAlias(v, `${field}[${j}]`);
    const key = `${a.host}${a.path}`;
    if (seen.has(key)) throw invalid(`${field}[${j}]`, 'duplicate_in_request', { other: seen.get(key)! });
    seen.set(key, j);
    return a;
  });
}
