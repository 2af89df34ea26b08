/**
 * api.md General rule 1: the un-prefixed forms denote the same operations. Requests to these
 * first path segments are routed as their `/api/…` forms (same auth, scopes, limits and
 * validation); the OpenAPI document lists only the `/api` forms. Short ids never take these
 * names (links/short-id.ts).
 */
export const UNPREFIXED = ['track', 'links', 'tags', 'collections', 'partners', 'customers', 'analytics'] as const;

const UNPREFIXED_PATH = new RegExp(`^/(?:${UNPREFIXED.join('|')})(?:[/?]|$)`);

export function withApiPrefix(url: string): string {
  return UNPREFIXED_PATH.test(url) ? `/api${url}` : url;
}
