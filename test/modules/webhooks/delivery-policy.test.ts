/**
 * Which addresses a webhook may reach (operations.md §11, "Where to"), as the connect-time
 * guard judges each resolved address: https to public addresses; anything inside
 * WEBHOOK_ALLOWED_CIDRS, http included; with ALLOW_PRIVATE_DESTINATIONS (tests) loopback
 * too (over http as well, for test receivers), and no other private address.
 */
import { describe, expect, it } from 'vitest';
import { destinationPolicy } from '../../../src/modules/webhooks/post.js';

const PUBLIC = ['93.184.216.34', '2606:4700::1111'];
const LOOPBACK = ['127.0.0.1', '127.9.8.7', '::1', '::ffff:127.0.0.1'];
const OTHER_PRIVATE = ['10.1.2.3', '192.168.0.10', '169.254.169.254', 'fe80::1', 'fd00::5', '::ffff:10.1.2.3', '100.64.0.1', '0.0.0.0'];
const PRIVATE = [...LOOPBACK, ...OTHER_PRIVATE];

describe('the webhook destination policy', () => {
  it('by default: https to public addresses only; no http at all', () => {
    const allowed = destinationPolicy({ allowPrivate: false, allowedCidrs: [] });
    for (const a of PUBLIC) expect([a, allowed('https:')(a), allowed('http:')(a)]).toEqual([a, true, false]);
    for (const a of PRIVATE) expect([a, allowed('https:')(a), allowed('http:')(a)]).toEqual([a, false, false]);
  });

  it('inside WEBHOOK_ALLOWED_CIDRS: https and http (IPv4-mapped addresses judged as IPv4)', () => {
    const allowed = destinationPolicy({ allowPrivate: false, allowedCidrs: ['10.0.0.0/8', 'fd00::/8'] });
    for (const a of ['10.1.2.3', '::ffff:10.1.2.3', 'fd00::5']) expect([a, allowed('https:')(a), allowed('http:')(a)]).toEqual([a, true, true]);
    for (const a of ['192.168.0.10', '127.0.0.1', '11.0.0.1']) expect([a, allowed('http:')(a)]).toEqual([a, false]);
    expect(allowed('https:')('192.168.0.10')).toBe(false);
  });

  it('with ALLOW_PRIVATE_DESTINATIONS: loopback too (https and http), no other private address', () => {
    const allowed = destinationPolicy({ allowPrivate: true, allowedCidrs: [] });
    for (const a of [...PUBLIC, ...LOOPBACK]) expect([a, allowed('https:')(a)]).toEqual([a, true]);
    for (const a of LOOPBACK) expect([a, allowed('http:')(a)]).toEqual([a, true]);
    for (const a of [...PUBLIC, ...OTHER_PRIVATE]) expect([a, allowed('http:')(a)]).toEqual([a, false]);
    for (const a of OTHER_PRIVATE) expect([a, allowed('https:')(a)]).toEqual([a, false]);
  });
});
