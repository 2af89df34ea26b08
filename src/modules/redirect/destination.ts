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

interface TrackingParts {
  /** Everything before the click id's value: base, kept query, our parameters, `<param>=`. */
  head: string;
  /** The fragment, if any. */
  tail: string;
}

function trackingParts(destination: string, utm: Record<string, string> | null, clickIdParam: string): TrackingParts {
  const ours: [string, string][] = [];
  if (utm) for (const [k, v] of Object.entries(utm)) if (UTM_PARAMS[k] && v) ours.push([UTM_PARAMS[k], v]);

  const hashAt = destination.indexOf('#');
  const tail = hashAt >= 0 ? destination.slice(hashAt) : '';
  const beforeHash = hashAt >= 0 ? destination.slice(0, hashAt) : destination;
  const queryAt = beforeHash.indexOf('?');
  const base = queryAt >= 0 ? beforeHash.slice(0, queryAt) : beforeHash;
  const query = queryAt >= 0 ? beforeHash.slice(queryAt + 1) : '';

  const replaced = new Set([...ours.map(([k]) => k), clickIdParam]);
  const kept = query.split('&').filter((pair) => pair !== '' && !replaced.has(decodeKey(pair.split('=')[0]!)));
  const added = ours.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  return { head: `${base}?${[...kept, ...added, `${encodeURIComponent(clickIdParam)}=`].join('&')}`, tail };
}

// A cached link forwards to the same few destinations with the same utm object on every visit:
// split each once (keyed by the utm object, so an updated link starts afresh).
const NO_UTM = {};
const partsCache = new WeakMap<object, Map<string, TrackingParts>>();

/**
 * Adds the link's UTM values and the click id to a destination. The destination's own query
 * is kept byte for byte, except parameters we set, which appear once with our value; the
 * fragment stays last.
 */
export function withTracking(destination: string, utm: Record<string, string> | null, clickIdParam: string, clickId: string): string {
  let byDestination = partsCache.get(utm ?? NO_UTM);
  if (!byDestination) partsCache.set(utm ?? NO_UTM, (byDestination = new Map()));
  const key = `${clickIdParam}\n${destination}`;
  let parts = byDestination.get(key);
  if (!parts) {
    if (byDestination.size >= 64) byDestination.clear();
    byDestination.set(key, (parts = trackingParts(destination, utm, clickIdParam)));
  }
  return `${parts.head}${encodeURIComponent(clickId)}${parts.tail}`;
}
