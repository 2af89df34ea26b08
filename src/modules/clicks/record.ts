import { isbot } from 'isbot';
import { UAParser } from 'ua-parser-js';
import type { CountryLookup } from '../../infra/country.js';
import {
  bool,
  COPY_BINARY_HEADER,
  COPY_BINARY_TRAILER,
  encodeFields,
  INT2_FIELD,
  NULL_FIELD,
  text,
  TIME_FIELD,
  uuid,
  UUID_FIELD,
  writeInt2Field,
  writeNullField,
  writeTimeField,
  writeUuidField,
} from './copy-format.js';

/** The UTM values a visitor was sent to the destination with (the link's, or the visitor's own). */
export interface Utm {
  source?: string;
  medium?: string;
  campaign?: string;
  term?: string;
  content?: string;
}

/** What the request path knows about a click; the rest is derived when the batch is written. */
export interface RawClick {
  id: string;
  workspaceId: string;
  linkId: string;
  partnerId: string | null;
  at: number;
  ip: string;
  userAgent: string;
  referer: string | undefined;
  country: string | undefined;
  /** UTM values in the destination the visitor was sent to; absent when there were none. */
  utm?: Utm;
  /** 'qr' when the visitor came by the link's QR code (its marker parameter); 'via' when a page with the attribution script reported it (a partner's `?via=` or a short id); absent: the link itself. */
  trigger?: 'qr' | 'via';
  /** Region and city ("<name>, <country code>"): from trusted edge headers, else the writer's city database. */
  region?: string;
  city?: string;
  /** The A/B test the click joined (operations.md §20) and its variant's index; absent: none. */
  testId?: string;
  variant?: number;
}

/** A click as stored: the raw click enriched (see enrichClick). */
export interface ClickRow {
  id: string;
  workspaceId: string;
  linkId: string;
  partnerId: string | null;
  createdAt: string;
  country: string | null;
  device: 'desktop' | 'mobile' | 'tablet' | 'other';
  browser: string | null;
  os: string | null;
  referrer: string;
  referrerUrl: string | null;
  bot: boolean;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  utmTerm: string | null;
  utmContent: string | null;
  trigger: 'link' | 'qr' | 'via';
  /** Absent in imported clicks (their source kept no place). */
  region?: string | null;
  city?: string | null;
  /** The A/B test the click joined and its variant (absent or null: none). */
  testId?: string | null;
  variant?: number | null;
}

interface AgentFacts {
  device: ClickRow['device'];
  browser: string | null;
  os: string | null;
  bot: boolean;
}

function deviceOf(type: string | undefined, os: string | undefined): ClickRow['device'] {
  if (type === 'mobile') return 'mobile';
  if (type === 'tablet') return 'tablet';
  if (type === undefined) return os ? 'desktop' : 'other';
  return 'other';
}

// Real traffic repeats a few thousand User-Agents and referrers: work each out once.
const CACHE_SIZE = 10_000;
const agentCache = new Map<string, AgentFacts>();
const refererCache = new Map<string, ReferrerFacts>();

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(key, value);
  return value;
}

export function agentFacts(userAgent: string): AgentFacts {
  const known = agentCache.get(userAgent);
  if (known) return known;
  const ua = new UAParser(userAgent).getResult();
  return remember(agentCache, userAgent, {
    device: deviceOf(ua.device.type, ua.os.name),
    browser: ua.browser.name ?? null,
    os: ua.os.name ?? null,
    bot: isbot(userAgent),
  });
}

interface ReferrerFacts {
  referrer: string;
  referrerUrl: string | null;
}

const DIRECT: ReferrerFacts = Object.freeze({ referrer: '(direct)', referrerUrl: null });

/** The referring site's host name ('(direct)' when none) and the Referer as stored; one object per Referer. */
function referrerOf(referer: string | undefined): ReferrerFacts {
  if (!referer) return DIRECT;
  const known = refererCache.get(referer);
  if (known) return known;
  let host: string | null = null;
  try {
    host = new URL(referer).hostname;
  } catch {
    /* not a URL: treated as direct */
  }
  return remember(refererCache, referer, host === null ? DIRECT : { referrer: host || '(direct)', referrerUrl: referer.slice(0, 2048) });
}

// Clicks of one second share everything but the milliseconds: format the rest once.
let isoSecond = Number.NaN;
let isoPrefix = '';

/** `Date#toISOString`, several times cheaper for timestamps that arrive in order. */
export function isoTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    isoSecond = second;
    isoPrefix = new Date(second * 1000).toISOString().slice(0, 20);
  }
  const frac = Math.floor(ms - second * 1000);
  return `${isoPrefix}${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}Z`;
}

/** Turns a raw click into its stored record: User-Agent parsing, bot flag, country, referrer. */
export function enrichClick(raw: RawClick, lookup: CountryLookup): ClickRow {
  const agent = agentFacts(raw.userAgent);
  return {
    id: raw.id,
    workspaceId: raw.workspaceId,
    linkId: raw.linkId,
    partnerId: raw.partnerId,
    createdAt: isoTime(raw.at),
    country: raw.country ?? lookup(raw.ip) ?? null,
    device: agent.device,
    browser: agent.browser,
    os: agent.os,
    ...referrerOf(raw.referer),
    bot: agent.bot,
    utmSource: utmValue(raw.utm?.source),
    utmMedium: utmValue(raw.utm?.medium),
    utmCampaign: utmValue(raw.utm?.campaign),
    utmTerm: utmValue(raw.utm?.term),
    utmContent: utmValue(raw.utm?.content),
    trigger: raw.trigger ?? 'link',
    region: placeValue(raw.region),
    city: placeValue(raw.city),
    testId: raw.testId ?? null,
    variant: raw.variant ?? null,
  };
}

/** A region or city as stored: at most 255 characters, no NUL, none when empty (as UTM values). */
const placeValue = (value: string | undefined): string | null => utmValue(value);

/**
 * A UTM value as stored: at most 255 characters and no NUL (a visitor can send anything; text
 * cannot hold NUL, and one such value would fail its whole batch), none when empty.
 */
function utmValue(value: string | undefined): string | null {
  if (!value) return null;
  const clean = (value.includes('\0') ? value.replace(/\0/g, '') : value).slice(0, 255);
  return clean || null;
}

/** The columns of the COPY rows `clickCopyChunks` makes, in order. */
export const CLICK_COPY_COLUMNS = [
  'id',
  'workspace_id',
  'link_id',
  'partner_id',
  'created_at',
  'country',
  'device',
  'browser',
  'os',
  'referrer',
  'referrer_url',
  'bot',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'trigger',
  'region',
  'city',
  'visitor_flags',
  'test_id',
  'variant',
];

/** What every click of one kind stores besides its id, time, flags and test: most clicks of a batch share one. */
export interface ClickVariant {
  /** workspace_id, link_id and partner_id as binary COPY fields. */
  readonly head: Buffer;
  /** country … city as binary COPY fields (copy-format.ts). */
  readonly tail: Buffer;
  /** The stored record (its id and time those of the click that first had this variant). */
  readonly row: ClickRow;
}

type Trie = Map<unknown, unknown>;
let variants: Trie = new Map();
let variantCount = 0;
const utmKeys = new WeakMap<Utm, string>();

function child(node: Trie, key: unknown): Trie {
  let next = node.get(key) as Trie | undefined;
  if (!next) node.set(key, (next = new Map()));
  return next;
}

/** The stored UTM values as one key, worked out once per utm object (a cached link shares one). */
function utmKey(utm: Utm | undefined): string {
  if (utm === undefined) return '';
  let key = utmKeys.get(utm);
  if (key === undefined) {
    key = JSON.stringify([utmValue(utm.source), utmValue(utm.medium), utmValue(utm.campaign), utmValue(utm.term), utmValue(utm.content)]);
    utmKeys.set(utm, key);
  }
  return key;
}

/**
 * A raw click's variant: found by what decides its stored fields (the link, the parsed agent and
 * referrer — one object each per distinct header, so they hash by identity —, the country, the
 * UTM values, the trigger), made from `enrichClick` the first time, so the two cannot differ.
 * Encoding a batch and grouping it for the rollups then cost a few map lookups per click.
 */
export function variantOf(raw: RawClick, lookup: CountryLookup): ClickVariant {
  const country = raw.country ?? lookup(raw.ip) ?? null;
  let node = child(child(child(variants, raw.workspaceId), raw.linkId), raw.partnerId);
  node = child(child(child(node, agentFacts(raw.userAgent)), referrerOf(raw.referer)), country);
  node = child(child(child(node, utmKey(raw.utm)), raw.region), raw.city);
  const trigger = raw.trigger ?? 'link';
  const known = node.get(trigger) as ClickVariant | undefined;
  if (known) return known;
  if (variantCount >= CACHE_SIZE) {
    variants = new Map();
    variantCount = 0;
  }
  variantCount++;
  const c = enrichClick({ ...raw, country: country ?? undefined }, lookup);
  const variant: ClickVariant = {
    head: encodeFields([uuid(c.workspaceId), uuid(c.linkId), uuid(c.partnerId)]),
    tail: encodeFields([
      text(c.country),
      text(c.device),
      text(c.browser),
      text(c.os),
      text(c.referrer),
      text(c.referrerUrl),
      bool(c.bot),
      text(c.utmSource),
      text(c.utmMedium),
      text(c.utmCampaign),
      text(c.utmTerm),
      text(c.utmContent),
      text(c.trigger),
      text(c.region ?? null),
      text(c.city ?? null),
    ]),
    row: c,
  };
  node.set(trigger, variant);
  return variant;
}

/** The bytes of one click's COPY row: fixed fields and its variant's. */
const rowBytes = (v: ClickVariant, raw: RawClick): number =>
  2 +
  UUID_FIELD +
  v.head.length +
  TIME_FIELD +
  v.tail.length +
  INT2_FIELD +
  (raw.testId === undefined ? NULL_FIELD : UUID_FIELD) +
  (raw.variant === undefined ? NULL_FIELD : INT2_FIELD);

/**
 * Raw clicks `from`–`to` as binary COPY rows (columns as CLICK_COPY_COLUMNS): the records
 * `enrichClick` makes, with the visitor flags their claims gave (`flags`, by click id; 0 without).
 * `seen` is told each click's variant as it is encoded (the batch's rollup groups).
 */
export function clickCopyRows(
  clicks: readonly RawClick[],
  lookup: CountryLookup,
  from = 0,
  to = clicks.length,
  seen?: (variant: ClickVariant, at: number, flags: number) => void,
  flags?: ReadonlyMap<string, number>,
): Buffer {
  const kinds: ClickVariant[] = [];
  let size = 0;
  for (let i = from; i < to; i++) {
    const v = variantOf(clicks[i]!, lookup);
    kinds.push(v);
    size += rowBytes(v, clicks[i]!);
  }
  const buf = Buffer.allocUnsafe(size);
  let o = 0;
  for (let i = from; i < to; i++) {
    const raw = clicks[i]!;
    const v = kinds[i - from]!;
    const f = flags?.get(raw.id) ?? 0;
    seen?.(v, raw.at, f);
    // The field count (23, big-endian int16); the variant's fields by TypedArray#set, cheaper than Buffer#copy for a few bytes.
    buf[o] = 0;
    buf[o + 1] = CLICK_COPY_COLUMNS.length;
    o = writeUuidField(buf, o + 2, raw.id);
    buf.set(v.head, o);
    o = writeTimeField(buf, o + v.head.length, raw.at);
    buf.set(v.tail, o);
    o += v.tail.length;
    o = writeInt2Field(buf, o, f);
    // The test and variant are the click's own (not its kind's): most clicks have none.
    o = raw.testId === undefined ? writeNullField(buf, o) : writeUuidField(buf, o, raw.testId);
    o = raw.variant === undefined ? writeNullField(buf, o) : writeInt2Field(buf, o, raw.variant);
  }
  return buf;
}

const CHUNK = 500;

/**
 * A batch as a binary COPY stream (header, rows, trailer) in chunks of 500 clicks, yielding to
 * the event loop between chunks so that encoding 20,000 clicks never holds up the requests
 * being answered meanwhile.
 */
export async function* clickCopyChunks(
  clicks: readonly RawClick[],
  lookup: CountryLookup,
  seen?: (variant: ClickVariant, at: number, flags: number) => void,
  flags?: ReadonlyMap<string, number>,
): AsyncGenerator<Buffer> {
  yield COPY_BINARY_HEADER;
  for (let from = 0; from < clicks.length; from += CHUNK) {
    if (from > 0) await new Promise((resolve) => setImmediate(resolve));
    yield clickCopyRows(clicks, lookup, from, Math.min(from + CHUNK, clicks.length), seen, flags);
  }
  yield COPY_BINARY_TRAILER;
}
