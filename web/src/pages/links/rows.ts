/**
 * Links as CSV rows and back: the export's columns, and what an imported row becomes (a
 * link-create item, or the problems found before sending it). Pure functions.
 */
import type { components } from '../../api/schema.js';
import type { Feature } from '../../session.js';

export type Link = components['schemas']['Link'];
export type LinkItem = Record<string, unknown>;

const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content', 'referral'] as const;

/** The export's columns; an import reads the same names (id, shortUrl and createdAt are ignored). */
export const COLUMNS = [
  'id', 'shortUrl', 'url', 'title', 'description', 'image', 'collectionId', 'tagIds', 'partnerId', 'externalId', 'tenantId',
  ...UTM_KEYS.map((k) => `utm_${k}`),
  'expiresAt', 'expiredUrl', 'ios', 'android', 'cloaked', 'geo', 'createdAt',
] as const;

/** One link as a CSV row of COLUMNS (tag ids separated by spaces, geo as JSON). The password is never exported. */
export function linkToRow(l: Link): string[] {
  const utm = (l.utm ?? {}) as Record<string, string>;
  const values: Record<string, string> = {
    id: l.id,
    shortUrl: l.shortUrl,
    url: l.url,
    title: l.title ?? '',
    description: l.description ?? '',
    image: l.image ?? '',
    collectionId: l.collectionId,
    tagIds: l.tagIds.join(' '),
    partnerId: l.partnerId ?? '',
    externalId: l.externalId ?? '',
    tenantId: l.tenantId ?? '',
    expiresAt: l.expiresAt ?? '',
    expiredUrl: l.expiredUrl ?? '',
    ios: l.ios ?? '',
    android: l.android ?? '',
    cloaked: l.cloaked ? 'true' : 'false',
    geo: l.geo ? JSON.stringify(l.geo) : '',
    createdAt: String(l.createdAt),
  };
  for (const k of UTM_KEYS) values[`utm_${k}`] = utm[k] ?? '';
  return COLUMNS.map((c) => values[c] ?? '');
}

export interface RowProblem {
  /** The row as a spreadsheet numbers it: the header is row 1. */
  row: number;
  field: string;
  /** A key of the page's strings, or the API's own message. */
  problem: { key: 'required' | 'https' | 'uuid' | 'date' | 'boolean' | 'json' | 'plan' } | { message: string };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const URL_FIELDS = ['url', 'image', 'expiredUrl', 'ios', 'android'] as const;
const GATED: Record<string, Feature> = { expiresAt: 'expiration', expiredUrl: 'expiration', password: 'password', cloaked: 'cloaking', ios: 'deviceTargeting', android: 'deviceTargeting', geo: 'geoTargeting' };

const isHttps = (v: string): boolean => {
  try {
    return new URL(v).protocol === 'https:';
  } catch {
    return false;
  }
};

/**
 * The link-create items of a parsed CSV (first record: the header), checked as far as the
 * browser can: what is left for the API (unknown ids, plan limits of the server…) comes back
 * from it. `features`: those the workspace's plan allows (GET /api/me); `defaultCollectionId`
 * serves rows without a collectionId.
 */
export function rowsToItems(records: string[][], allowed: readonly Feature[], defaultCollectionId: string | undefined): { items: { row: number; item: LinkItem }[]; problems: RowProblem[]; missingUrlColumn: boolean } {
  const [header = [], ...body] = records;
  const names = header.map((h) => h.trim());
  const col = (name: string) => names.findIndex((n) => n.toLowerCase() === name.toLowerCase());
  const features = new Set(allowed);
  const items: { row: number; item: LinkItem }[] = [];
  const problems: RowProblem[] = [];
  const at = (r: string[], name: string) => {
    const i = col(name);
    return i < 0 ? '' : (r[i] ?? '').trim();
  };
  body.forEach((r, index) => {
    const row = index + 2;
    const before = problems.length;
    const bad = (field: string, key: Extract<RowProblem['problem'], { key: string }>['key']) => problems.push({ row, field, problem: { key } });
    const item: LinkItem = {};
    for (const f of ['url', 'title', 'description', 'image', 'externalId', 'tenantId', 'expiredUrl', 'password', 'ios', 'android'] as const) {
      const v = at(r, f);
      if (v !== '') item[f] = v;
    }
    if (item.url === undefined) bad('url', 'required');
    for (const f of URL_FIELDS) if (typeof item[f] === 'string' && !isHttps(item[f] as string)) bad(f, 'https');
    const collectionId = at(r, 'collectionId') || defaultCollectionId || '';
    if (!collectionId) bad('collectionId', 'required');
    else if (!UUID.test(collectionId)) bad('collectionId', 'uuid');
    else item.collectionId = collectionId;
    const tagIds = at(r, 'tagIds').split(/[\s;,]+/).filter(Boolean);
    if (tagIds.some((t) => !UUID.test(t))) bad('tagIds', 'uuid');
    else if (tagIds.length) item.tagIds = tagIds;
    const partnerId = at(r, 'partnerId');
    if (partnerId && !UUID.test(partnerId)) bad('partnerId', 'uuid');
    else if (partnerId) item.partnerId = partnerId;
    const utm: Record<string, string> = {};
    for (const k of UTM_KEYS) if (at(r, `utm_${k}`)) utm[k] = at(r, `utm_${k}`);
    if (Object.keys(utm).length) item.utm = utm;
    const expiresAt = at(r, 'expiresAt');
    if (expiresAt && (Number.isNaN(Date.parse(expiresAt)) || !/(Z|[+-]\d\d:?\d\d)$/i.test(expiresAt))) bad('expiresAt', 'date');
    else if (expiresAt) item.expiresAt = expiresAt;
    const cloaked = at(r, 'cloaked').toLowerCase();
    if (cloaked && cloaked !== 'true' && cloaked !== 'false') bad('cloaked', 'boolean');
    else if (cloaked === 'true') item.cloaked = true;
    const geo = at(r, 'geo');
    if (geo) {
      try {
        const parsed: unknown = JSON.parse(geo);
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('geo');
        item.geo = parsed;
      } catch {
        bad('geo', 'json');
      }
    }
    for (const [field, feature] of Object.entries(GATED)) if (item[field] !== undefined && !features.has(feature)) bad(field, 'plan');
    if (problems.length === before) items.push({ row, item });
  });
  return { items, problems, missingUrlColumn: body.length > 0 && col('url') < 0 };
}

/** The API's message without its `[3].` item prefix (the report names the row instead). */
export const withoutIndex = (message: string): string => message.replace(/\[\d+\]\.?/, '');
