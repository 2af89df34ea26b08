import type { Utm } from '../clicks/service.js';

const UTM_PARAMS: Record<string, string> = {
  source: 'utm_source',
  medium: 'utm_medium',
  campaign: 'utm_campaign',
  term: 'utm_term',
  content: 'utm_content',
  referral: 'ref',
};

/** The click's UTM fields by query parameter (a Map: a visitor may send `__proto__`). */
const UTM_FIELDS = new Map<string, keyof Utm>([
  ['utm_source', 'source'],
  ['utm_medium', 'medium'],
  ['utm_campaign', 'campaign'],
  ['utm_term', 'term'],
  ['utm_content', 'content'],
]);

function decodeKey(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });
const isHex = (b: number) => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);

/**
 * A query value as the destination's server reads it (WHATWG `URLSearchParams`): `+` is a
 * space, `%XX` are UTF-8 bytes; a `%` without two hex digits stays, bytes that are not UTF-8
 * become U+FFFD (where `decodeURIComponent` would throw).
 */
export function formValue(raw: string): string {
  const spaced = raw.includes('+') ? raw.replace(/\+/g, ' ') : raw;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    const bytes = Buffer.from(spaced, 'utf8');
    const out = new Uint8Array(bytes.length);
    let n = 0;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] === 0x25 && i + 2 < bytes.length && isHex(bytes[i + 1]!) && isHex(bytes[i + 2]!)) {
        out[n++] = parseInt(String.fromCharCode(bytes[i + 1]!, bytes[i + 2]!), 16);
        i += 2;
      } else out[n++] = bytes[i]!;
    }
    return UTF8.decode(out.subarray(0, n));
  }
}

/** Splits a `key=value` pair; the key decoded (for matching), the value raw. */
function splitPair(pair: string): [key: string, rawValue: string] {
  const eq = pair.indexOf('=');
  return eq === -1 ? [decodeKey(pair), ''] : [decodeKey(pair.slice(0, eq)), pair.slice(eq + 1)];
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

export interface TrackingParts {
  /** Everything before the click id's value: base, kept query, our parameters, `<param>=`. */
  head: string;
  /** The fragment, if any. */
  tail: string;
  /**
   * The UTM values the destination's server reads in that query (the first of each name, as
   * `URLSearchParams.get`), undefined when it has none.
   */
  utm: Utm | undefined;
}

/** The short link's own query, already split: its pairs, their decoded keys, its first utm_* values ('' counts). */
interface VisitorPart {
  pairs: string[];
  keys: ReadonlySet<string>;
  utm: Utm | undefined;
}

const NO_VISITOR: VisitorPart = { pairs: [], keys: new Set(), utm: undefined };

function trackingParts(destination: string, utm: Record<string, string> | null, clickIdParam: string, visitor = NO_VISITOR): TrackingParts {
  const ours: [string, string][] = [];
  if (utm) for (const [k, v] of Object.entries(utm)) if (UTM_PARAMS[k] && v) ours.push([UTM_PARAMS[k], v]);

  const hashAt = destination.indexOf('#');
  const tail = hashAt >= 0 ? destination.slice(hashAt) : '';
  const beforeHash = hashAt >= 0 ? destination.slice(0, hashAt) : destination;
  const queryAt = beforeHash.indexOf('?');
  const base = queryAt >= 0 ? beforeHash.slice(0, queryAt) : beforeHash;
  const query = queryAt >= 0 ? beforeHash.slice(queryAt + 1) : '';

  // Each utm_* name in the result comes from one source only: the visitor's query if it has
  // the name, else the link's utm, else the destination's own pairs (the first one).
  const found: Utm = { ...visitor.utm };
  const replaced = new Set([...ours.map(([k]) => k), ...visitor.keys, clickIdParam]);
  const kept: string[] = [];
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const [key, raw] = splitPair(pair);
    if (replaced.has(key)) continue;
    kept.push(pair);
    const field = UTM_FIELDS.get(key);
    if (field && found[field] === undefined) found[field] = formValue(raw);
  }
  const added = ours.filter(([k]) => !visitor.keys.has(k));
  for (const [k, v] of added) {
    const field = UTM_FIELDS.get(k);
    if (field) found[field] = v;
  }
  return {
    head: `${base}?${[...kept, ...added.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`), ...visitor.pairs, `${encodeURIComponent(clickIdParam)}=`].join('&')}`,
    tail,
    utm: utmOrNone(found),
  };
}

const UTM_KEYS = [...UTM_FIELDS.values()];

/** The values that say something (an empty one is none); undefined when none does. */
function utmOrNone(found: Utm): Utm | undefined {
  let utm: Utm | undefined;
  for (const field of UTM_KEYS) if (found[field]) (utm ??= {})[field] = found[field];
  return utm;
}

// A cached link forwards to the same few destinations with the same utm object on every visit:
// split each once (keyed by the utm object, so an updated link starts afresh), then by the click
// id parameter and the destination: strings the link cache holds, whose hashes are kept, where a
// key joined from them would be a new string to hash at every visit.
const NO_UTM = {};
const partsCache = new WeakMap<object, Map<string, Map<string, TrackingParts | null>>>();

/**
 * Adds the link's UTM values and the click id to a destination. The destination's own query
 * is kept (percent-encoded where it was not visible ASCII), except parameters we set, which
 * appear once with our value; the fragment stays last. `visitorQuery`, the short link's own
 * query string, is passed on: its keys replace the destination's and the utm values of the
 * same name, and the click id parameter is always ours. Undefined when the result cannot be
 * made a header-safe URL. The Location is `locationWith(parts, clickId)`; `parts.utm` is what
 * the click records.
 */
export function tracking(destination: string, utm: Record<string, string> | null, clickIdParam: string, visitorQuery = ''): TrackingParts | undefined {
  if (visitorQuery !== '') return visitorTracking(destination, utm, clickIdParam, visitorQuery);
  let byParam = partsCache.get(utm ?? NO_UTM);
  if (!byParam) partsCache.set(utm ?? NO_UTM, (byParam = new Map()));
  let byDestination = byParam.get(clickIdParam);
  if (!byDestination) byParam.set(clickIdParam, (byDestination = new Map()));
  let parts = byDestination.get(destination);
  if (parts === undefined) {
    if (byDestination.size >= 64) byDestination.clear();
    const computed = trackingParts(destination, utm, clickIdParam);
    const head = headerSafe(computed.head);
    const tail = headerSafe(computed.tail);
    // Its utm is shared by every click of this destination: frozen, so none can change it.
    parts = head === undefined || tail === undefined ? null : { head, tail, utm: computed.utm && Object.freeze(computed.utm) };
    byDestination.set(destination, parts);
  }
  return parts ?? undefined;
}

/** The Location for a click id: ours are UUIDs (hex digits and '-'), which need no encoding in a query. */
export const locationWith = (parts: TrackingParts, clickId: string): string => `${parts.head}${clickId}${parts.tail}`;

/** `tracking` and `locationWith` in one: the Location for a click id. */
export function withTracking(
  destination: string,
  utm: Record<string, string> | null,
  clickIdParam: string,
  clickId: string,
  visitorQuery = '',
): string | undefined {
  const parts = tracking(destination, utm, clickIdParam, visitorQuery);
  return parts && locationWith(parts, clickId);
}

/** With the short link's own query: split afresh for each visit (only its pairs are parsed). */
function visitorTracking(destination: string, utm: Record<string, string> | null, clickIdParam: string, visitorQuery: string): TrackingParts | undefined {
  const pairs: string[] = [];
  const keys = new Set<string>();
  let visitorUtm: Utm | undefined;
  // A raw '#' (no browser sends one; a hand-made request can) would start the fragment before our click id.
  for (const pair of requestTargetSafe(visitorQuery).replaceAll('#', '%23').split('&')) {
    if (pair === '') continue;
    const [key, raw] = splitPair(pair);
    if (key === clickIdParam) continue;
    pairs.push(pair);
    const field = UTM_FIELDS.get(key);
    // The first of a name is what the destination reads; '' is kept: it still replaces ours.
    if (field && !keys.has(key)) (visitorUtm ??= {})[field] = formValue(raw);
    keys.add(key);
  }
  const parts = trackingParts(destination, utm, clickIdParam, { pairs, keys, utm: visitorUtm });
  const head = headerSafe(parts.head);
  const tail = headerSafe(parts.tail);
  return head === undefined || tail === undefined ? undefined : { head, tail, utm: parts.utm };
}
