import type { Sealer } from '../../core/sealed.js';
import type { LinkRow } from './store.js';

export interface LinkSettings {
  /** Origin of short links: shortUrl = `${shortLinkBaseUrl}/${shortId}`. */
  shortLinkBaseUrl: string;
  /** Origin of the API, where /api/qr renders QR codes. */
  baseUrl: string;
  /** Seals link passwords (purpose 'link-password'): the API shows them, so they cannot be hashed. */
  sealer: Sealer;
}

/** QR defaults; every parameter is in the URL so the image can be re-rendered anywhere. */
export const QR_DEFAULTS = { size: 600, errorCorrection: 'M', foreground: '000000', background: 'ffffff', margin: 2, format: 'png' } as const;

/**
 * The query parameter that marks a visit by QR code: a link's QR image encodes
 * `{shortUrl}?ltqr=1`. The redirect records such a click with trigger 'qr' and removes the
 * parameter (written exactly `ltqr`) before passing the visitor's query on to the destination.
 */
export const QR_MARKER = 'ltqr';

/** What a link's QR code encodes: its short URL with the QR marker. */
export const qrText = (shortUrl: string): string => `${shortUrl}?${QR_MARKER}=1`;

export function qrCodeUrl(baseUrl: string, text: string): string {
  const q = new URLSearchParams({
    text,
    size: String(QR_DEFAULTS.size),
    errorCorrection: QR_DEFAULTS.errorCorrection,
    foreground: QR_DEFAULTS.foreground,
    background: QR_DEFAULTS.background,
    margin: String(QR_DEFAULTS.margin),
    format: QR_DEFAULTS.format,
  });
  return `${baseUrl}/api/qr?${q.toString()}`;
}

/** The API's Link record: rows never leave the service as they are stored. */
export function toLink(row: LinkRow, s: LinkSettings) {
  const shortUrl = `${s.shortLinkBaseUrl}/${row.shortId}`;
  return {
    id: row.id,
    url: row.url,
    shortUrl,
    qrCode: qrCodeUrl(s.baseUrl, qrText(shortUrl)),
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
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export type Link = ReturnType<typeof toLink>;
