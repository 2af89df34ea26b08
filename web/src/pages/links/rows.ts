/**
 * Links as CSV rows (the export's columns), the link-create item's type, and the API message
 * without its item prefix. Pure functions.
 */
import type { components } from '../../api/schema.js';

export type Link = components['schemas']['Link'];
export type LinkItem = Record<string, unknown>;

const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content', 'referral'] as const;

/** The export's columns (names beside ids: a person reads the one, a program or a re-import the other). */
export const COLUMNS = [
  'id',
  'shortUrl',
  'url',
  'title',
  'description',
  'image',
  'collection',
  'collectionId',
  'tags',
  'tagIds',
  'partner',
  'partnerId',
  'externalId',
  'tenantId',
  ...UTM_KEYS.map((k) => `utm_${k}`),
  'expiresAt',
  'expiredUrl',
  'ios',
  'android',
  'cloaked',
  'geo',
  'createdAt',
] as const;

/** The names of the ids a link holds (the workspace's collections, tags and partners). */
export interface Names {
  collections: ReadonlyMap<string, string>;
  tags: ReadonlyMap<string, string>;
  partners: ReadonlyMap<string, string>;
}

const NO_NAMES: Names = { collections: new Map(), tags: new Map(), partners: new Map() };

/**
 * One link as a CSV row of COLUMNS (tag names separated by `, ` as the import reads them, tag
 * ids by spaces, geo as JSON). The password is never exported.
 */
export function linkToRow(l: Link, names: Names = NO_NAMES): string[] {
  const utm = (l.utm ?? {}) as Record<string, string>;
  const values: Record<string, string> = {
    id: l.id,
    shortUrl: l.shortUrl,
    url: l.url,
    title: l.title ?? '',
    description: l.description ?? '',
    image: l.image ?? '',
    collection: names.collections.get(l.collectionId) ?? '',
    collectionId: l.collectionId,
    tags: l.tagIds
      .map((id) => names.tags.get(id) ?? '')
      .filter(Boolean)
      .join(', '),
    tagIds: l.tagIds.join(' '),
    partner: l.partnerId ? (names.partners.get(l.partnerId) ?? '') : '',
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

/** The API's message without its `[3].` item prefix (the form shows it at the field it names). */
export const withoutIndex = (message: string): string => message.replace(/\[\d+\]\.?/, '');
