/**
 * Whether the internet can reach a URL's host, as far as its name tells: Stripe posts its
 * events from outside, so a webhook URL on localhost, a private or link-local address, or a
 * name only a local network knows (.local, .test, .internal, a single label) never receives them.
 * A public-looking name may still be unreachable (a firewall): this catches the common mistakes
 * of a server run on a laptop, nothing more.
 */
export function reachableFromInternet(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return false;
  }
  if (host.startsWith('[')) return publicIpv6(host.slice(1, -1));
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return publicIpv4(host.split('.').map(Number));
  if (!host.includes('.')) return false; // localhost, a machine's bare name
  return !LOCAL_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`));
}

/** Names that resolve only on this machine or its network (RFC 6761, 6762, 8375 and common use). */
const LOCAL_SUFFIXES = ['localhost', 'local', 'test', 'internal', 'lan', 'home', 'home.arpa', 'invalid', 'example', 'localdomain', 'corp', 'intranet'];

function publicIpv4([a, b]: number[]): boolean {
  if (a === undefined || b === undefined) return false;
  if (a === 0 || a === 10 || a === 127 || a >= 224) return false; // this network, private, loopback, multicast and reserved
  if (a === 169 && b === 254) return false; // link-local
  if (a === 172 && b >= 16 && b <= 31) return false;
  if (a === 192 && b === 168) return false;
  if (a === 100 && b >= 64 && b <= 127) return false; // carrier-grade NAT
  return true;
}

function publicIpv6(host: string): boolean {
  if (host === '::' || host === '::1') return false;
  // An IPv4-mapped address, which URL spells in hex (::ffff:a00:1 for 10.0.0.1).
  const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(host);
  if (mapped) return publicIpv4([parseInt(mapped[1]!, 16) >> 8, parseInt(mapped[1]!, 16) & 0xff]);
  const first = parseInt(host.split(':')[0] || '0', 16);
  if ((first & 0xfe00) === 0xfc00) return false; // unique local fc00::/7
  if ((first & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
  if ((first & 0xff00) === 0xff00) return false; // multicast
  return true;
}
