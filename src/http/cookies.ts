import type { FastifyRequest } from 'fastify';

/**
 * operations.md §7: `__Host-lt_session` on https (bound to this host, Secure, Path=/), else
 * `lt_session`; HttpOnly and SameSite=Lax either way.
 */
export function sessionCookieName(baseUrl: string): string {
  return baseUrl.startsWith('https:') ? '__Host-lt_session' : 'lt_session';
}

export function sessionCookie(baseUrl: string, value: string, maxAgeMs: number): string {
  const secure = baseUrl.startsWith('https:') ? '; Secure' : '';
  return `${sessionCookieName(baseUrl)}=${value}; Path=/; HttpOnly; SameSite=Lax${secure}; Max-Age=${Math.floor(maxAgeMs / 1000)}`;
}

/** Tells the browser to forget the cookie (logout, an ended session). */
export const clearedSessionCookie = (baseUrl: string): string => sessionCookie(baseUrl, '', 0);

/** Every value of the named cookie the request carries (a browser may send several with one name). */
export function cookieValues(request: FastifyRequest, name: string): string[] {
  const header = request.headers.cookie;
  if (!header) return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) values.push(part.slice(eq + 1).trim());
  }
  return values;
}

/**
 * The first-party rule: the session cookie counts only on requests from the dashboard's own
 * origin. A foreign `Origin` or `Sec-Fetch-Site: cross-site` makes it no credential at all
 * (same-site subdomains are refused too unless they are this origin).
 */
export function isFirstParty(request: FastifyRequest, baseOrigin: string): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== baseOrigin) return false;
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}
