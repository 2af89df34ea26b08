/**
 * The facts behind §18's fraud rules: one person's two addresses (selfReferral), throwaway
 * domains (disposableEmail), and the keyed network of an address (burst).
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDisposableEmail, networkKey, samePerson } from '../../../src/modules/commissions/fraud-signals.js';

describe('samePerson', () => {
  it('matches addresses ignoring case, and a trailing dot of the domain', () => {
    expect(samePerson('Joe@Example.com', 'joe@example.COM')).toBe(true);
    expect(samePerson('joe@example.com.', 'JOE@EXAMPLE.COM')).toBe(true);
    expect(samePerson('  joe@example.com ', 'joe@example.com')).toBe(true);
  });

  it("ignores Gmail's dots and +tag, and googlemail.com is gmail.com", () => {
    expect(samePerson('j.o.e+promo@gmail.com', 'JOE@googlemail.com')).toBe(true);
    expect(samePerson('joe+a+b@GoogleMail.com', 'j.oe@gmail.com')).toBe(true);
    expect(samePerson('joe.smith@gmail.com', 'joesmith+x@gmail.com')).toBe(true);
  });

  it('keeps dots and +tags apart elsewhere, and other people apart', () => {
    expect(samePerson('j.o.e@example.com', 'joe@example.com')).toBe(false);
    expect(samePerson('joe+x@example.com', 'joe@example.com')).toBe(false);
    expect(samePerson('joe@gmail.com', 'joe@example.com')).toBe(false);
    expect(samePerson('joe@gmail.com', 'joe@gmail.co')).toBe(false);
    expect(samePerson('joe@gmail.com', 'jo@gmail.com')).toBe(false);
    expect(samePerson('joe@mail.gmail.com', 'joe@gmail.com')).toBe(false);
  });

  it('matches nothing that is no address', () => {
    expect(samePerson('', '')).toBe(false);
    expect(samePerson('not an address', 'not an address')).toBe(false);
    expect(samePerson('+a@gmail.com', '+b@gmail.com')).toBe(false);
  });

  it('is symmetric and reflexive on addresses', () => {
    const local = fc.stringMatching(/^[a-zA-Z0-9]([a-zA-Z0-9.+]{0,10}[a-zA-Z0-9])?$/).filter((l) => !l.includes('..'));
    const domain = fc.constantFrom('gmail.com', 'GoogleMail.com', 'example.com', 'Example.org');
    const address = fc.tuple(local, domain).map(([l, d]) => `${l}@${d}`);
    fc.assert(fc.property(address, address, (a, b) => samePerson(a, b) === samePerson(b, a) && samePerson(a, a)));
  });
});

describe('isDisposableEmail', () => {
  it('knows throwaway providers, in any case, and their subdomains', () => {
    expect(isDisposableEmail('x@mailinator.com')).toBe(true);
    expect(isDisposableEmail('X@MAILINATOR.COM')).toBe(true);
    expect(isDisposableEmail('x@inbox.mailinator.com')).toBe(true);
    expect(isDisposableEmail('x@yopmail.com')).toBe(true);
    expect(isDisposableEmail('x@guerrillamail.com')).toBe(true);
  });

  it('lets real providers and anything that is no address through', () => {
    expect(isDisposableEmail('x@gmail.com')).toBe(false);
    expect(isDisposableEmail('x@outlook.com')).toBe(false);
    expect(isDisposableEmail('x@example.com')).toBe(false);
    expect(isDisposableEmail('mailinator.com')).toBe(false);
    expect(isDisposableEmail('')).toBe(false);
    // The domain and its parents are checked, not names that merely contain a listed one.
    expect(isDisposableEmail('x@linktrail-mailinator.com')).toBe(false);
    expect(isDisposableEmail('x@mailinator.com.example.net')).toBe(false);
  });
});

describe('networkKey', () => {
  const key = Buffer.from('0123456789abcdef0123456789abcdef');
  const hmac = (text: string, k = key) => createHmac('sha256', k).update(text).digest('base64url').slice(0, 22);

  it('is the keyed hash of the /24 of an IPv4 address, also IPv4-mapped', () => {
    expect(networkKey('203.0.113.7', key)).toBe(hmac('203.0.113.0/24'));
    expect(networkKey('203.0.113.255', key)).toBe(networkKey('203.0.113.7', key));
    expect(networkKey('::ffff:203.0.113.9', key)).toBe(networkKey('203.0.113.7', key));
    expect(networkKey('::FFFF:cb00:7109', key)).toBe(networkKey('203.0.113.7', key));
    expect(networkKey('203.0.114.7', key)).not.toBe(networkKey('203.0.113.7', key));
  });

  it('is the keyed hash of the /48 of an IPv6 address, however it is written', () => {
    expect(networkKey('2001:db8:abcd:12::1', key)).toBe(hmac('2001:db8:abcd::/48'));
    expect(networkKey('2001:0DB8:ABCD:ffff:0:0:0:2', key)).toBe(networkKey('2001:db8:abcd:12::1', key));
    expect(networkKey('2001:db8:abce::1', key)).not.toBe(networkKey('2001:db8:abcd::1', key));
    expect(networkKey('fe80::1%eth0', key)).toBe(hmac('fe80:0:0::/48'));
  });

  it('depends on the key, and never shows the address', () => {
    const other = Buffer.from('another key of thirty-two bytes!');
    expect(networkKey('203.0.113.7', other)).not.toBe(networkKey('203.0.113.7', key));
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        const out = networkKey(ip, key);
        return /^[A-Za-z0-9_-]{22}$/.test(out) && !out.includes(ip.split('.').slice(0, 3).join('.'));
      }),
    );
    fc.assert(fc.property(fc.ipV6(), (ip) => /^[A-Za-z0-9_-]{22}$/.test(networkKey(ip, key))));
  });

  it('refuses what is no address', () => {
    for (const ip of ['', '1.2.3', '203.0.113.256', 'example.com', '1.2.3.4/24']) expect(() => networkKey(ip, key)).toThrow(RangeError);
  });
});
