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

/** IPv6 global unicast (2000::/3): everything outside it is special, reserved or unassigned. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/**
 * IPv6 forms that embed or reach an IPv4 address through a translator or tunnel. Refused
 * outright, whatever IPv4 address they carry (Teredo even obfuscates it): a destination that
 * is only reachable that way is not one a cloaked link needs, and judging each embedding is
 * where guards go wrong. Listed here so the guard does not depend on the library's ranges.
 */
const TRANSITION = [
  '::/96', // IPv4-compatible (deprecated): ::127.0.0.1 is written ::7f00:1
  '::ffff:0:0/96', // SIIT, RFC 6145
  '64:ff9b::/96', // NAT64, RFC 6052
  '64:ff9b:1::/48', // local-use NAT64, RFC 8215
  '2002::/16', // 6to4
  '2001::/23', // IETF protocol assignments: Teredo (2001::/32), benchmarking, ORCHID, AMT…
].map((cidr) => ipaddr.parseCIDR(cidr));

/**
 * Only globally routable unicast addresses: no loopback, private, link-local, CGNAT, multicast,
 * documentation, reserved, nor IPv4 smuggled inside IPv6. An IPv4-mapped address
 * (::ffff:a.b.c.d) is judged by its IPv4 address, which is what the system connects to. Only
 * canonical literals are judged (what resolvers and URL parsing give): anything else is refused.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  // No zone ids (fe80::1%eth0): only link-local addresses carry one.
  if (family === 0 || address.includes('%')) return false;
  // ipaddr.js reads a dotted tail as IPv4-mapped (`::8.8.8.8` as ::ffff:808:808), so IPv6 is
  // first written in hex the way the WHATWG URL parser (and the connection) sees it.
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(family === 6 ? new URL(`https://[${address}]/`).hostname.slice(1, -1) : address);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else if (!v6.match(GLOBAL_UNICAST) || TRANSITION.some((range) => v6.match(range))) return false;
  }
  return parsed.range() === 'unicast';
}

/** Whether an address lies inside one of the CIDR ranges (an operator's allowed list). */
export function inRanges(ranges: readonly string[]): (address: string) => boolean {
  const parsed = ranges.map((r) => ipaddr.parseCIDR(r));
  if (parsed.length === 0) return () => false;
  return (address) => {
    if (!ipaddr.isValid(address)) return false;
    let ip = ipaddr.parse(address);
    if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
    return parsed.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));
  };
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

/**
 * DNS lookup that refuses the whole name if any of its addresses is not allowed: given to
 * http(s).request as `lookup`, it judges the addresses of every connection, so a name that
 * re-resolves elsewhere between a check and the connection is refused too. (An IP literal
 * host is not looked up: judge it before connecting.)
 */
export function guardedLookup(allowed: (address: string) => boolean) {
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

export interface GuardedFetchOptions {
  /** Which resolved addresses a scheme may reach (judged at every connection). */
  allowed: (protocol: 'http:' | 'https:') => (address: string) => boolean;
  timeoutMs: number;
  /** An answer longer than this is an error (a JSON document or a key set is a few KB). */
  maxBytes: number;
}

export type GuardedFetch = (
  url: string,
  init?: { method?: string; headers?: ConstructorParameters<typeof Headers>[0]; body?: unknown; signal?: AbortSignal | null },
) => Promise<Response>;

/**
 * A `fetch` whose every connection passes the address guard (as `safeHead`, but reading the
 * body, bounded): for clients that must talk to a server an owner named, such as an OpenID
 * provider. Redirects are never followed; a connection of its own each time.
 */
export function guardedFetch(o: GuardedFetchOptions): GuardedFetch {
  return (href, init = {}) =>
    new Promise((resolve, reject) => {
      const url = new URL(href);
      if (url.protocol !== 'https:' && url.protocol !== 'http:') return reject(new Error(`unsupported scheme ${url.protocol}`));
      const allowed = o.allowed(url.protocol);
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) && !allowed(host)) return reject(new BlockedAddressError(host));
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => (headers[name] = value));
      const body = typeof init.body === 'string' ? init.body : init.body instanceof URLSearchParams ? init.body.toString() : undefined;
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      const req = (url.protocol === 'https:' ? https : http).request(url, {
        method: init.method ?? 'GET',
        headers,
        lookup: guardedLookup(allowed) as never,
        agent: false,
      });
      const fail = (err: Error) => {
        clearTimeout(timer);
        req.destroy();
        reject(err);
      };
      const timer = setTimeout(() => fail(new Error('timeout')), o.timeoutMs);
      init.signal?.addEventListener('abort', () => fail(new Error('aborted')), { once: true });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > o.maxBytes) return fail(new Error(`answer larger than ${o.maxBytes} bytes`));
          chunks.push(chunk);
        });
        res.on('error', fail);
        res.on('end', () => {
          clearTimeout(timer);
          const out = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(', ') : value);
          const status = res.statusCode ?? 502;
          const nobody = status === 204 || status === 304;
          resolve(new Response(nobody ? null : Buffer.concat(chunks), { status, headers: out }));
        });
      });
      req.on('error', fail);
      req.end(body);
    });
}
