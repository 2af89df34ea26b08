import type { RedirectLink } from '../links/service.js';

export type { RedirectLink };

export interface Visitor {
  /** From the User-Agent: iOS, Android or anything else. */
  os: 'ios' | 'android' | 'other';
  /** Uppercase ISO country code, when known. */
  country?: string;
  /** Holds a valid cookie for this link's password. */
  unlocked: boolean;
}

export type Decision =
  { kind: 'password' } | { kind: 'expired'; to: string | null } | { kind: 'forward'; to: string; cloaked: boolean; via: 'ios' | 'android' | 'geo' | 'url' };

/**
 * api.md "Link resolution order": password gate, expiration, iOS/Android (before geo), geo by
 * country, default url; cloaking only changes how the chosen destination is shown. Pure.
 */
export function resolveDestination(link: RedirectLink, visitor: Visitor, nowMs: number): Decision {
  if (link.passwordSealed && !visitor.unlocked) return { kind: 'password' };
  if (link.expiresAt !== null && nowMs > link.expiresAt) return { kind: 'expired', to: link.expiredUrl };
  if (visitor.os === 'ios' && link.ios) return { kind: 'forward', to: link.ios, cloaked: link.cloaked, via: 'ios' };
  if (visitor.os === 'android' && link.android) return { kind: 'forward', to: link.android, cloaked: link.cloaked, via: 'android' };
  const geoUrl = visitor.country && link.geo ? link.geo[visitor.country] : undefined;
  if (geoUrl) return { kind: 'forward', to: geoUrl, cloaked: link.cloaked, via: 'geo' };
  return { kind: 'forward', to: link.url, cloaked: link.cloaked, via: 'url' };
}

const IOS = /\b(iPhone|iPad|iPod)\b/;
const ANDROID = /\bAndroid\b/;

/** The one User-Agent fact the decision needs; full parsing happens off the request path. */
export function osOf(userAgent: string): Visitor['os'] {
  if (IOS.test(userAgent)) return 'ios';
  if (ANDROID.test(userAgent)) return 'android';
  return 'other';
}
