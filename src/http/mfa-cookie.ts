import type { FastifyRequest } from 'fastify';
import { cookieValues } from './cookies.js';

/** The pending login's cookie (operations.md §15): HttpOnly, 5 minutes, `__Host-` on https. */
export const mfaCookieName = (baseUrl: string): string => (baseUrl.startsWith('https:') ? '__Host-lt_mfa' : 'lt_mfa');

export function mfaCookie(baseUrl: string, value: string, maxAgeMs: number): string {
  const secure = baseUrl.startsWith('https:') ? '; Secure' : '';
  return `${mfaCookieName(baseUrl)}=${value}; Path=/; HttpOnly; SameSite=Strict${secure}; Max-Age=${Math.floor(maxAgeMs / 1000)}`;
}

export const pendingTokenOf = (req: FastifyRequest, baseUrl: string): string | undefined => cookieValues(req, mfaCookieName(baseUrl))[0];
