/**
 * The SSRF guard of the cloaking check (isPublicAddress, issue 11 defect 7): every way of
 * writing an IPv4 address inside IPv6, and every special range, is refused; only globally
 * routable unicast addresses pass. Transition forms that embed an IPv4 address (IPv4-compatible,
 * SIIT, NAT64, 6to4, Teredo) are refused outright, whatever they embed; IPv4-mapped ones are
 * judged by the IPv4 address they carry, since the system connects to exactly that address.
 */
import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../../src/infra/safe-fetch.js';

describe('isPublicAddress', () => {
  const refused: [string, string][] = [
    // IPv4 special ranges
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'this network'],
    ['0.1.2.3', 'this network'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.1', 'documentation'],
    ['203.0.113.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    // IPv6 special ranges
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fec0::1', 'site-local (deprecated)'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'ORCHID'],
    ['2001:20::1', 'ORCHIDv2'],
    ['5f00::1', 'segment routing'],
    ['::2:3:4:5', 'reserved ::/8'],
    ['400::1', 'not global unicast (outside 2000::/3)'],
    ['4000::1', 'not global unicast (outside 2000::/3)'],
    // IPv4 embedded in IPv6
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['0:0:0:0:0:ffff:7f00:0001', 'IPv4-mapped loopback, long form'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, as URL writes it'],
    ['::a00:1', 'IPv4-compatible private'],
    ['::a9fe:a9fe', 'IPv4-compatible metadata'],
    ['::8.8.8.8', 'IPv4-compatible public (deprecated form: refused outright)'],
    ['::ffff:0:127.0.0.1', 'SIIT (RFC 6145) loopback'],
    ['::ffff:0:8.8.8.8', 'SIIT (RFC 6145) public: refused outright'],
    ['64:ff9b::127.0.0.1', 'NAT64 loopback'],
    ['64:ff9b::7f00:1', 'NAT64 loopback, hex'],
    ['64:ff9b::8.8.8.8', 'NAT64 public: refused outright'],
    ['64:ff9b:1::a00:1', 'local-use NAT64 (RFC 8215) private'],
    ['64:ff9b:1:ffff::1', 'local-use NAT64 (RFC 8215)'],
    ['2002:7f00:1::', '6to4 of 127.0.0.1'],
    ['2002:a9fe:a9fe::1', '6to4 of 169.254.169.254'],
    ['2002:808:808::1', '6to4 of 8.8.8.8: refused outright'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo, client 127.0.0.1 obfuscated'],
    ['2001::1', 'Teredo'],
    ['2001:1::1', 'IETF protocol assignments'],
    // Not addresses at all
    ['fe80::1%eth0', 'with a zone'],
    ['not an address', 'text'],
    ['', 'empty'],
    ['127.1', 'short IPv4 form (never what a resolver or URL gives)'],
    ['0x7f000001', 'numeric IPv4 form'],
    ['0x08080808', 'numeric form of a public address (only canonical forms are judged)'],
    ['8.8.8', 'short form of a public address'],
  ];
  it.each(refused)('%s is refused (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  const allowed: [string, string][] = [
    ['8.8.8.8', 'public IPv4'],
    ['1.1.1.1', 'public IPv4'],
    ['93.184.215.14', 'public IPv4'],
    ['172.32.0.1', 'just past 172.16/12'],
    ['100.128.0.1', 'just past 100.64/10'],
    ['2606:4700::1', 'public IPv6'],
    ['2a00:1450:4001:80e::200e', 'public IPv6'],
    ['::ffff:8.8.8.8', 'IPv4-mapped public (the system connects to 8.8.8.8)'],
    ['2003::1', 'just past 6to4'],
  ];
  it.each(allowed)('%s is public (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});
