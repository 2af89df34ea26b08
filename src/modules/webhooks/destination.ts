import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { invalid } from '../../core/errors.js';
import { inRanges, isPublicAddress } from '../../infra/safe-fetch.js';
import { URL_MAX_LENGTH } from './schemas.js';

/** Where webhooks may go besides the public Internet (operations.md §11 "Where to"). */
export interface DestinationRules {
  /** WEBHOOK_ALLOWED_CIDRS: the operator's in-house ranges (http allowed there). */
  allowedCidrs: readonly string[];
  /** ALLOW_PRIVATE_DESTINATIONS (tests): loopback addresses too, nothing more, still https only. */
  allowPrivate: boolean;
}

/**
 * Loopback (127.0.0.0/8, ::1, and IPv4-mapped 127/8): what ALLOW_PRIVATE_DESTINATIONS opens to
 * webhooks (§11), unlike the cloaking check, where it opens private addresses as well.
 */
export const isLoopbackAddress = inRanges(['127.0.0.0/8', '::1/128']);

/** Whether an address is inside one of the ranges (an IPv4-mapped IPv6 address counts as its IPv4). */
export function insideCidrs(address: string, cidrs: readonly string[]): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return false;
  }
  return cidrs.some((cidr) => {
    const [range, bits] = ipaddr.parseCIDR(cidr);
    return range.kind() === parsed.kind() && parsed.match(range, bits);
  });
}

/** Whether a webhook may connect to this address (the same rule at registration and at every connection). */
export function webhookAddressAllowed(address: string, rules: DestinationRules): boolean {
  return insideCidrs(address, rules.allowedCidrs) || isPublicAddress(address) || (rules.allowPrivate && isLoopbackAddress(address));
}

/** The host's addresses (an IP literal is its own); undefined when the name does not resolve. */
async function addressesOf(host: string): Promise<string[] | undefined> {
  if (isIP(host)) return [host];
  try {
    return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return undefined;
  }
}

/**
 * Checks an endpoint URL at registration (and on a PATCH of it): an absolute https URL without
 * user info or fragment, whose host resolves, every address allowed; http only when every
 * address is inside WEBHOOK_ALLOWED_CIDRS. Returns the URL as the parser writes it. The
 * delivery re-checks each address at connection time, so a name that re-resolves elsewhere
 * is refused then too.
 */
export async function checkWebhookUrl(value: string, rules: DestinationRules, field = 'url'): Promise<string> {
  if (value.length > URL_MAX_LENGTH) throw invalid(field, 'max_length', { limit: URL_MAX_LENGTH });
  if (/[\s\p{Cc}]/u.test(value)) throw invalid(field, 'url_characters');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(field, 'webhook_url');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '' || url.username !== '' || url.password !== '' || url.hash !== '') {
    throw invalid(field, 'webhook_url');
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = await addressesOf(host);
  if (!addresses || addresses.length === 0) throw invalid(field, 'unresolvable');
  if (addresses.some((a) => !webhookAddressAllowed(a, rules))) throw invalid(field, 'private_address');
  if (url.protocol === 'http:' && !addresses.every((a) => insideCidrs(a, rules.allowedCidrs))) throw invalid(field, 'https_required');
  return url.href;
}
