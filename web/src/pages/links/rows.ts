/**
 * Links as CSV rows (the export's columns), the link-create item's type, and the API message
 * without its item prefix. Pure functions.
 */
import type { components } from '../../api/schema.js';

export type Link = components['schemas']['Link'];
export type LinkItem = Record<string, unknown>;

const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content', 'referral'] as const;

/** The export's columns. */
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

/** The API's message without its `[3].` item prefix (the form shows it at the field it names). */
export const withoutIndex = (message: string): string => message.replace(/\[\d+\]\.?/, '');
