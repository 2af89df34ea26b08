const UTM_PARAMS: Record<string, string> = {
  source: 'utm_source',
  medium: 'utm_medium',
  campaign: 'utm_campaign',
  term: 'utm_term',
  content: 'utm_content',
  referral: 'ref',
};

function decodeKey(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/**
 * A URL made safe for a `Location` header: every character outside visible ASCII is
 * percent-encoded as UTF-8 (what a browser would send), so a stored or visitor-sent value can
 * never break the header or make writing it throw. Undefined when it cannot be encoded (a lone
 * surrogate): the caller answers 500 instead of redirecting.
 */
export function headerSafe(url: string): string | undefined {
  if (!UNSAFE.test(url)) return url;
  try {
    return url.replace(UNSAFE_ALL, (c) => encodeURIComponent(c));
  } catch {
    return undefined;
  }
}
const UNSAFE = /[^\x21-\x7e]/;
const UNSAFE_ALL = /[^\x21-\x7e]/gu;

/** Bytes of a request target (Node reads them as latin1) as percent-encoded visible ASCII. */
function requestTargetSafe(raw: string): string {
  if (!UNSAFE.test(raw)) return raw;
  // Node never hands over more than latin1 here; anything wider is encoded as UTF-8, and a lone
  // surrogate (impossible from a socket) as U+FFFD rather than a failure.
  return raw.toWellFormed().replace(UNSAFE_ALL, (c) => {
    const code = c.charCodeAt(0);
    return code < 256 ? `%${code.toString(16).toUpperCase().padStart(2, '0')}` : encodeURIComponent(c);
  });
}

interface TrackingParts {
  /** Everything before the click id's value: base, kept query, our parameters, `<param>=`. */
  head: string;
  /** The fragment, if any. */
  tail: string;
}

function trackingParts(
  destination: string,
  utm: Record<string, string> | null,
  clickIdParam: string,
  visitorPairs: string[] = [],
  visitorKeys: ReadonlySet<string> = NONE,
): TrackingParts {
  const ours: [string, string][] = [];
  if (utm) for (const [k, v] of Object.entries(utm)) if (UTM_PARAMS[k] && v) ours.push([UTM_PARAMS[k], v]);

  const hashAt = destination.indexOf('#');
  const tail = hashAt >= 0 ? destination.slice(hashAt) : '';
  const beforeHash = hashAt >= 0 ? destination.slice(0, hashAt) : destination;
  const queryAt = beforeHash.indexOf('?');
  const base = queryAt >= 0 ? beforeHash.slice(0, queryAt) : beforeHash;
  const query = queryAt >= 0 ? beforeHash.slice(queryAt + 1) : '';

  const replaced = new Set([...ours.map(([k]) => k), ...visitorKeys, clickIdParam]);
  const kept = query.split('&').filter((pair) => pair !== '' && !replaced.has(decodeKey(pair.split('=')[0]!)));
  const added = ours.filter(([k]) => !visitorKeys.has(k)).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  return { head: `${base}?${[...kept, ...added, ...visitorPairs, `${encodeURIComponent(clickIdParam)}=`].join('&')}`, tail };
}

const NONE = new Set<string>();

// A cached link forwards to the same few destinations with the same utm object on every visit:
// split each once (keyed by the utm object, so an updated link starts afresh).
const NO_UTM = {};
const partsCache = new WeakMap<object, Map<string, TrackingParts | null>>();

/**
 * Adds the link's UTM values and the click id to a destination. The destination's own query
 * is kept (percent-encoded where it was not visible ASCII), except parameters we set, which
 * appear once with our value; the fragment stays last. `visitorQuery`, the short link's own
 * query string, is passed on: its keys replace the destination's and the utm values of the
 * same name, and the click id parameter is always ours. Undefined when the result cannot be
 * made a header-safe URL.
 */
export function withTracking(
  destination: string,
  utm: Record<string, string> | null,
  clickIdParam: string,
  clickId: string,
  visitorQuery = '',
): string | undefined {
  if (visitorQuery !== '') return withVisitorQuery(destination, utm, clickIdParam, clickId, visitorQuery);
  let byDestination = partsCache.get(utm ?? NO_UTM);
  if (!byDestination) partsCache.set(utm ?? NO_UTM, (byDestination = new Map()));
  const key = `${clickIdParam}\n${destination}`;
  let parts = byDestination.get(key);
  if (parts === undefined) {
    if (byDestination.size >= 64) byDestination.clear();
    const computed = trackingParts(destination, utm, clickIdParam);
    const head = headerSafe(computed.head);
    const tail = headerSafe(computed.tail);
    parts = head === undefined || tail === undefined ? null : { head, tail };
    byDestination.set(key, parts);
  }
  return parts === null ? undefined : `${parts.head}${encodeURIComponent(clickId)}${parts.tail}`;
}

function withVisitorQuery(destination: string, utm: Record<string, string> | null, clickIdParam: string, clickId: string, visitorQuery: string): string | undefined {
  const pairs = requestTargetSafe(visitorQuery)
    .split('&')
    .filter((pair) => pair !== '' && decodeKey(pair.split('=')[0]!) !== clickIdParam);
  const keys = new Set(pairs.map((pair) => decodeKey(pair.split('=')[0]!)));
  const parts = trackingParts(destination, utm, clickIdParam, pairs, keys);
  const head = headerSafe(parts.head);
  const tail = headerSafe(parts.tail);
  return head === undefined || tail === undefined ? undefined : `${head}${encodeURIComponent(clickId)}${tail}`;
}
