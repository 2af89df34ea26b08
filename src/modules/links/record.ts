import type { PasswordBox } from './password.js';
import type { LinkRow } from './store.js';

export interface LinkSettings {
  /** Origin of short links: shortUrl = `${shortLinkBaseUrl}/${shortId}`. */
  shortLinkBaseUrl: string;
  /** Origin of the API, where /api/qr renders QR codes. */
  baseUrl: string;
  passwords: PasswordBox;
}

/** QR defaults; every parameter is in the URL so the image can be re-rendered anywhere. */
export const QR_DEFAULTS = { size: 600, errorCorrection: 'M', foreground: '000000', background: 'ffffff', margin: 2, format: 'png' } as const;

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
    qrCode: qrCodeUrl(s.baseUrl, shortUrl),
    title: row.title,
    description: row.description,
    image: row.image,
    utm: row.utm,
    expiresAt: row.expiresAt,
    expiredUrl: row.expiredUrl,
    password: row.passwordSealed ? s.passwords.open(row.passwordSealed) : null,
    cloaked: row.cloaked,
    ios: row.ios,
    android: row.android,
    geo: row.geo,
    collectionId: row.collectionId,
    tagIds: row.tagIds,
    externalId: row.externalId,
    tenantId: row.tenantId,
    partnerId: row.partnerId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export type Link = ReturnType<typeof toLink>;
