/**
 * The facts behind §18's fraud rules: one person's two addresses (selfReferral), throwaway
 * domains (disposableEmail), and the network of an address (burst).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { networkOf } from '../../../src/modules/clicks/service.js';
import { isDisposableEmail, samePerson } from '../../../src/modules/commissions/fraud-signals.js';

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

describe('networkOf (the network burst counts leads of; clicks keep only its keyed hash)', () => {
  it('is the /24 of an IPv4 address, also IPv4-mapped', () => {
    expect(networkOf('203.0.113.7')).toBe('203.0.113.0/24');
    expect(networkOf('203.0.113.255')).toBe(networkOf('203.0.113.7'));
    expect(networkOf('::ffff:203.0.113.9')).toBe(networkOf('203.0.113.7'));
    expect(networkOf('::FFFF:cb00:7109')).toBe(networkOf('203.0.113.7'));
    expect(networkOf('203.0.114.7')).not.toBe(networkOf('203.0.113.7'));
  });

  it('is the /48 of an IPv6 address, however it is written', () => {
    expect(networkOf('2001:db8:abcd:12::1')).toBe('2001:db8:abcd::/48');
    expect(networkOf('2001:0DB8:ABCD:ffff:0:0:0:2')).toBe(networkOf('2001:db8:abcd:12::1'));
    expect(networkOf('2001:db8:abce::1')).not.toBe(networkOf('2001:db8:abcd::1'));
    expect(networkOf('fe80::1%eth0')).toBe('fe80:0:0::/48');
  });

  it('is one network for every address of a /24', () => {
    fc.assert(fc.property(fc.ipV4(), (ip) => networkOf(ip) === `${ip.split('.').slice(0, 3).join('.')}.0/24`));
  });

  it('refuses what is no address', () => {
    for (const ip of ['', '1.2.3', '203.0.113.256', 'example.com', '1.2.3.4/24']) expect(() => networkOf(ip)).toThrow(RangeError);
  });
});
