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
 * Adds the link's UTM values and the click id to a destination. The destination's own query
 * is kept byte for byte, except parameters we set, which appear once with our value; the
 * fragment stays last.
 */
export function withTracking(destination: string, utm: Record<string, string> | null, clickIdParam: string, clickId: string): string {
  const ours: [string, string][] = [];
  if (utm) for (const [k, v] of Object.entries(utm)) if (UTM_PARAMS[k] && v) ours.push([UTM_PARAMS[k], v]);
  ours.push([clickIdParam, clickId]);

  const hashAt = destination.indexOf('#');
  const fragment = hashAt >= 0 ? destination.slice(hashAt) : '';
  const beforeHash = hashAt >= 0 ? destination.slice(0, hashAt) : destination;
  const queryAt = beforeHash.indexOf('?');
  const base = queryAt >= 0 ? beforeHash.slice(0, queryAt) : beforeHash;
  const query = queryAt >= 0 ? beforeHash.slice(queryAt + 1) : '';

  const replaced = new Set(ours.map(([k]) => k));
  const kept = query.split('&').filter((pair) => pair !== '' && !replaced.has(decodeKey(pair.split('=')[0]!)));
  const added = ours.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  return `${base}?${[...kept, ...added].join('&')}${fragment}`;
}
