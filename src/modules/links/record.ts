import type { Sealer } from '../../core/sealed.js';
import { DEFAULT_DESIGN, qrImageUrl, type QrDesign } from '../qr/service.js';
import type { LinkRow } from './store.js';
import type { StoredTest } from './test-rules.js';

export interface LinkSettings {
  /** Origin of short links: shortUrl = `${shortLinkBaseUrl}/${shortId}` (or `/${key}`). */
  shortLinkBaseUrl: string;
  /** Origin of the API, where /api/qr renders QR codes. */
  baseUrl: string;
  /** Seals link passwords (purpose 'link-password'): the API shows them, so they cannot be hashed. */
  sealer: Sealer;
}

/**
 * The query parameter that marks a visit by QR code: a link's QR image encodes
 * `{shortUrl}?ltqr=1`. The redirect records such a click with trigger 'qr' and removes the
 * parameter (written exactly `ltqr`) before passing the visitor's query on to the destination.
 */
export const QR_MARKER = 'ltqr';

/** What a link's QR code encodes: its short URL with the QR marker. */
export const qrText = (shortUrl: string): string => `${shortUrl}?${QR_MARKER}=1`;

/** A link's QR design as the Link record shows it: complete, its logo when it still has one. */
export function designOf(row: Pick<LinkRow, 'qrDesign' | 'qrLogoId'>): QrDesign {
  return { ...DEFAULT_DESIGN, ...row.qrDesign, logoId: row.qrLogoId };
}

const shortHosts = new Map<string, string>();
/** The short-link host as the Link record's domain shows it: SHORT_LINK_BASE_URL's host, with its port when it has one. */
export function shortLinkHost(shortLinkBaseUrl: string): string {
  let host = shortHosts.get(shortLinkBaseUrl);
  if (host === undefined) shortHosts.set(shortLinkBaseUrl, (host = new URL(shortLinkBaseUrl).host));
  return host;
}

/** Where a link is reached (operations.md §21): its domain, its key (null: by short id on the short-link host) and that URL. */
function placeOf(row: Pick<LinkRow, 'shortId' | 'branded'>, s: LinkSettings): { domain: string; key: string | null; shortUrl: string } {
  const b = row.branded;
  if (!b) return { domain: shortLinkHost(s.shortLinkBaseUrl), key: null, shortUrl: `${s.shortLinkBaseUrl}/${row.shortId}` };
  if (b.host === '') return { domain: shortLinkHost(s.shortLinkBaseUrl), key: b.key, shortUrl: `${s.shortLinkBaseUrl}/${b.key}` };
  return { domain: b.host, key: b.key, shortUrl: `https://${b.host}/${b.key}` };
}

/** The running test as the Link record shows it (its id is the record's `testId`). */
function testOf(t: StoredTest | null) {
  if (!t) return null;
  return {
    variants: t.variants.map((v) => ({ url: v.url, weight: v.weight })),
    endsAt: t.endsAt,
    metric: t.metric,
    currency: t.currency,
    autoApply: t.autoApply,
  };
}

/** The API's Link record: rows never leave the service as they are stored. */
export function toLink(row: LinkRow, s: LinkSettings) {
  const { domain, key, shortUrl } = placeOf(row, s);
  const design = designOf(row);
  return {
    id: row.id,
    url: row.url,
    shortUrl,
    qrCode: qrImageUrl(s.baseUrl, qrText(shortUrl), design),
    title: row.title,
    description: row.description,
    image: row.image,
    utm: row.utm,
    expiresAt: row.expiresAt,
    expiredUrl: row.expiredUrl,
    password: row.passwordSealed ? s.sealer.open('link-password', row.passwordSealed) : null,
    cloaked: row.cloaked,
    ios: row.ios,
    android: row.android,
    geo: row.geo,
    collectionId: row.collectionId,
    tagIds: row.tagIds,
    externalId: row.externalId,
    tenantId: row.tenantId,
    partnerId: row.partnerId,
    aliases: row.aliases,
    domain,
    key,
    shortId: row.shortId,
    qrDesign: design,
    test: testOf(row.test),
    testId: row.test?.id ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export type Link = ReturnType<typeof toLink>;
