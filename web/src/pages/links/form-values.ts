/**
 * The link form's values and the request item they make: pure functions (no DOM), so the form
 * component keeps only its state and its fields.
 */
import type { Feature } from '../../session.js';
import type { Link, LinkItem } from './rows.js';

export const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content', 'referral'] as const;
export const TEXT_FIELDS = ['url', 'title', 'description', 'image', 'externalId', 'tenantId', 'expiredUrl', 'password', 'ios', 'android'] as const;
export type TextName = (typeof TEXT_FIELDS)[number] | `utm.${(typeof UTM_KEYS)[number]}`;
export type Values = Record<TextName | 'collectionId' | 'partnerId' | 'expiresAt' | 'geo' | 'domain' | 'key', string>;

/** What the form holds besides its text values. */
export interface Choices {
  tagIds: string[];
  cloaked: boolean;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** An ISO date-time as the value of a datetime-local input, in the browser's time zone. */
function localInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function initialValues(l: Link | undefined, defaultCollectionId: string): Values {
  const utm = (l?.utm ?? {}) as Record<string, string>;
  const v = {} as Values;
  for (const f of TEXT_FIELDS) v[f] = (l?.[f] as string | null | undefined) ?? '';
  for (const k of UTM_KEYS) v[`utm.${k}`] = utm[k] ?? '';
  v.collectionId = l?.collectionId ?? defaultCollectionId;
  v.partnerId = l?.partnerId ?? '';
  // '' on a new link: the workspace's default domain, which the form shows once it knows it.
  v.domain = l?.domain ?? '';
  v.key = l?.key ?? '';
  v.expiresAt = localInput(l?.expiresAt as string | null | undefined);
  v.geo = Object.entries((l?.geo ?? {}) as Record<string, string>)
    .map(([c, u]) => `${c} ${u}`)
    .join('\n');
  return v;
}

/** "DE https://…" lines → { DE: url }, or the number of the first bad line. */
function parseGeo(text: string): Record<string, string> | number {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    const m = /^([A-Za-z]{2})\s+(\S+)$/.exec(line);
    if (!m) return i + 1;
    out[m[1]!.toUpperCase()] = m[2]!;
  }
  return out;
}

/** The request fields a plan feature gates: a field the plan forbids is not shown, and never sent. */
const GATED: [field: string, feature: Feature][] = [
  ['expiresAt', 'expiration'],
  ['expiredUrl', 'expiration'],
  ['password', 'password'],
  ['cloaked', 'cloaking'],
  ['ios', 'deviceTargeting'],
  ['android', 'deviceTargeting'],
  ['geo', 'geoTargeting'],
];

/**
 * The fields of the request: all that are set (create, no `link`), or those that changed from
 * `initial`, null clearing (edit). A bad geo line: its 1-based number instead.
 */
export function buildItem(
  link: Link | undefined,
  initial: Values,
  values: Values,
  { tagIds, cloaked }: Choices,
  features: ReadonlySet<Feature>,
): LinkItem | number {
  const item: LinkItem = {};
  const changed = (k: keyof Values) => !link || values[k] !== initial[k];
  for (const f of TEXT_FIELDS) {
    if (!changed(f)) continue;
    const v = values[f].trim();
    if (v) item[f] = f === 'password' ? values[f] : v;
    else if (link) item[f] = null;
  }
  if (changed('collectionId') && values.collectionId) item.collectionId = values.collectionId;
  if (changed('partnerId')) item.partnerId = values.partnerId || (link ? null : undefined);
  if (item.partnerId === undefined) delete item.partnerId;
  if (!link ? tagIds.length > 0 : tagIds.join() !== link.tagIds.join()) item.tagIds = tagIds;
  const utm: Record<string, string | null> = {};
  for (const k of UTM_KEYS) {
    if (!changed(`utm.${k}`)) continue;
    const v = values[`utm.${k}`].trim();
    if (v) utm[k] = v;
    else if (link) utm[k] = null;
  }
  if (Object.keys(utm).length) item.utm = utm;
  if (changed('expiresAt')) {
    if (values.expiresAt) item.expiresAt = new Date(values.expiresAt).toISOString();
    else if (link) item.expiresAt = null;
  }
  if (values.domain && changed('domain')) item.domain = values.domain;
  if (changed('key')) {
    const key = values.key.trim();
    if (key) item.key = key;
    else if (link) item.key = null;
  }
  if (cloaked !== (link?.cloaked ?? false)) item.cloaked = cloaked;
  if (changed('geo')) {
    const geo = parseGeo(values.geo);
    if (typeof geo === 'number') return geo;
    if (Object.keys(geo).length) item.geo = geo;
    else if (link) item.geo = null;
  }
  for (const [f, feature] of GATED) if (!features.has(feature)) delete item[f];
  return item;
}

/** The query parameter each UTM value becomes at the redirect (src/modules/redirect/destination.ts). */
export const UTM_PARAMS: Record<(typeof UTM_KEYS)[number], string> = {
  source: 'utm_source',
  medium: 'utm_medium',
  campaign: 'utm_campaign',
  term: 'utm_term',
  content: 'utm_content',
  referral: 'ref',
};

const parsed = (url: string): URL | undefined => {
  try {
    return new URL(url.trim());
  } catch {
    return undefined;
  }
};

/**
 * Where a visitor lands: the destination with the UTM values as parameters, each replacing the
 * destination's own of that name, as the redirect does; undefined while the URL is not one.
 */
export function landingUrl(values: Values): string | undefined {
  const url = parsed(values.url);
  if (!url) return undefined;
  for (const k of UTM_KEYS) {
    const v = values[`utm.${k}`].trim();
    if (v) url.searchParams.set(UTM_PARAMS[k], v);
  }
  return url.href;
}

/** The UTM parameters already in the destination, read into the UTM fields still empty (the URL stays as typed). */
export function utmFromUrl(values: Values): Values {
  const url = parsed(values.url);
  if (!url) return values;
  const next = { ...values };
  for (const k of UTM_KEYS) {
    const found = url.searchParams.get(UTM_PARAMS[k]);
    if (found && !next[`utm.${k}`].trim()) next[`utm.${k}`] = found;
  }
  return UTM_KEYS.some((k) => next[`utm.${k}`] !== values[`utm.${k}`]) ? next : values;
}

/** A saved template's values as the form's UTM fields: every key, those it lacks emptied. */
export function withTemplate(values: Values, utm: Partial<Record<(typeof UTM_KEYS)[number], string>>): Values {
  const next = { ...values };
  for (const k of UTM_KEYS) next[`utm.${k}`] = utm[k] ?? '';
  return next;
}

/** The form's UTM values as a template's `utm` (the empty ones left out). */
export function utmOf(values: Values): Partial<Record<(typeof UTM_KEYS)[number], string>> {
  const out: Partial<Record<(typeof UTM_KEYS)[number], string>> = {};
  for (const k of UTM_KEYS) {
    const v = values[`utm.${k}`].trim();
    if (v) out[k] = v;
  }
  return out;
}
