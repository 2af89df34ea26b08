import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export class BlockedAddressError extends Error {
  constructor(readonly address: string) {
    super(`destination resolves to a non-public address (${address})`);
  }
}

/** Only globally routable unicast addresses: no loopback, private, link-local, CGNAT, multicast… */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

export interface HeadResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  url: string;
}

export interface SafeFetchOptions {
  allowPrivate: boolean;
  /** Which resolved addresses may be contacted; defaults to public ones (all with allowPrivate). */
  isAllowedAddress?: (address: string) => boolean;
  timeoutMs: number;
  maxRedirects: number;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

const allowedBy = (o: SafeFetchOptions) => o.isAllowedAddress ?? (o.allowPrivate ? () => true : isPublicAddress);

/** DNS lookup that refuses the whole name if any of its addresses is not allowed. */
function guardedLookup(allowed: (address: string) => boolean) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const blocked = addresses.find((a) => !allowed(a.address));
      if (blocked) return callback(new BlockedAddressError(blocked.address) as NodeJS.ErrnoException, []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** One request; resolves with the status and headers, never reading the body. */
function requestOnce(url: URL, method: 'HEAD' | 'GET', o: SafeFetchOptions): Promise<HeadResult> {
  return new Promise((resolve, reject) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const allowed = allowedBy(o);
    if (isIP(host) && !allowed(host)) return reject(new BlockedAddressError(host));
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method,
      lookup: guardedLookup(allowed) as never,
      headers: { 'user-agent': 'LinktrailFrameCheck/1.0', accept: 'text/html,*/*' },
      timeout: o.timeoutMs,
    });
    const timer = setTimeout(() => req.destroy(new Error('timeout')), o.timeoutMs);
    req.on('response', (res) => {
      clearTimeout(timer);
      resolve({ status: res.statusCode ?? 0, headers: res.headers, url: url.href });
      res.destroy();
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end();
  });
}

/** Follows redirects by hand, so every hop's address passes the same guard. */
export async function safeHead(start: string, method: 'HEAD' | 'GET', o: SafeFetchOptions): Promise<HeadResult> {
  let url = new URL(start);
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`unsupported scheme ${url.protocol}`);
    const res = await requestOnce(url, method, o);
    const location = res.headers.location;
    if (res.status >= 300 && res.status < 400 && location) {
      if (hop >= o.maxRedirects) throw new Error('too many redirects');
      url = new URL(location, url);
      continue;
    }
    return res;
  }
}
