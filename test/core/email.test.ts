/**
 * The one normalization of a person's e-mail (src/core/email.ts): case, the domain's trailing
 * dot and internationalized domains (node's url.domainToASCII) give one form, whatever the spelling.
 */
import fc from 'fast-check';
import { domainToUnicode } from 'node:url';
import { describe, expect, test } from 'vitest';
import { emailKey, normalizeEmail } from '../../src/core/email.js';

const localChar = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+/=?^_`{|}~-".split(''));
const atom = fc.string({ unit: localChar, minLength: 1, maxLength: 10 });
const local = fc.array(atom, { minLength: 1, maxLength: 3 }).map((a) => a.join('.'));
const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/).filter((l) => !/^xn--/.test(l) && !/^..--/.test(l));
const domain = fc.tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.stringMatching(/^[a-z]{2,6}$/)).map(([labels, tld]) => [...labels, tld].join('.'));
/** An ASCII address already in its one form. */
const canonical = fc.tuple(local, domain).map(([l, d]) => `${l}@${d}`);
/** The same address as a person, a form or a provider may write it. */
const respell = (email: string, upper: boolean[], dot: boolean, spaces: boolean) => {
  const cased = [...email].map((c, i) => (upper[i % upper.length] ? c.toUpperCase() : c)).join('');
  return `${spaces ? '  ' : ''}${cased}${dot ? '.' : ''}${spaces ? ' ' : ''}`;
};

describe('normalizeEmail', () => {
  test('is the identity on an address in its one form, and brings every spelling of it there', () => {
    fc.assert(
      fc.property(canonical, fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), fc.boolean(), fc.boolean(), (email, upper, dot, spaces) => {
        expect(normalizeEmail(email)).toBe(email);
        expect(normalizeEmail(respell(email, upper, dot, spaces))).toBe(email);
        expect(emailKey(respell(email, upper, dot, spaces))).toBe(email);
      }),
    );
  });

  test('is idempotent on whatever it accepts', () => {
    fc.assert(
      fc.property(fc.oneof(canonical, fc.string({ maxLength: 40 }), fc.emailAddress()), (raw) => {
        const once = normalizeEmail(raw);
        if (once !== undefined) expect(normalizeEmail(once)).toBe(once);
      }),
    );
  });

  test('an internationalized domain is its punycode, written in Unicode, in punycode or in another case', () => {
    expect(normalizeEmail('Victim@CORP.test.')).toBe('victim@corp.test');
    expect(normalizeEmail('sam@Bücher.Example.')).toBe('sam@xn--bcher-kva.example');
    expect(normalizeEmail('sam@XN--BCHER-KVA.example')).toBe('sam@xn--bcher-kva.example');
    // UTS #46 mapping: full-width letters and the ideographic full stop are the same name.
    expect(normalizeEmail('sam@ｂüｃｈｅｒ。example')).toBe('sam@xn--bcher-kva.example');
    expect(domainToUnicode('xn--bcher-kva.example')).toBe('bücher.example');
  });

  test.each([
    ['no @', 'victim.corp.test'],
    ['nothing before the @', '@corp.test'],
    ['a single-label domain', 'victim@localhost'],
    ['two trailing dots', 'victim@corp.test..'],
    ['a dot at the start of the local part', '.victim@corp.test'],
    ['two dots in the local part', 'vic..tim@corp.test'],
    ['a space inside', 'vic tim@corp.test'],
    ['an IP address', 'victim@127.0.0.1'],
    ['a local part over 64', `${'a'.repeat(65)}@corp.test`],
    ['over 254 in all', `${'a'.repeat(60)}@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(20)}.test`],
    ['a label over 63', `victim@${'a'.repeat(64)}.test`],
  ])('refuses %s', (_why, raw) => {
    expect(normalizeEmail(raw)).toBeUndefined();
  });
});
