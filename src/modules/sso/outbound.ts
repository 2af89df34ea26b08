import { guardedFetch, inRanges, isPublicAddress, type GuardedFetch } from '../../infra/safe-fetch.js';

/**
 * Where an identity provider may be (operations.md §15): https to public addresses; anything
 * inside the operator's SSO_ALLOWED_CIDRS (http too); with ALLOW_PRIVATE_DESTINATIONS (tests),
 * every address, and http to the non-public ones.
 */
export function ssoFetch(o: { allowedCidrs: readonly string[]; allowPrivate: boolean }): GuardedFetch {
  const inside = inRanges(o.allowedCidrs);
  const https = o.allowPrivate ? () => true : (a: string) => isPublicAddress(a) || inside(a);
  const http = (a: string) => inside(a) || (o.allowPrivate && !isPublicAddress(a));
  return guardedFetch({ allowed: (protocol) => (protocol === 'https:' ? https : http), timeoutMs: 10_000, maxBytes: 512 * 1024 });
}
