/**
 * The address rule of webhook URLs (operations.md §11 "Where to"), as pure functions: public
 * addresses always; private, loopback and link-local ones only inside WEBHOOK_ALLOWED_CIDRS;
 * ALLOW_PRIVATE_DESTINATIONS (tests) allows loopback too, nothing more; http only inside those ranges.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { checkWebhookUrl, insideCidrs, webhookAddressAllowed, type DestinationRules } from '../../../src/modules/webhooks/destination.js';

const strict: DestinationRules = { allowedCidrs: [], allowPrivate: false };
const octet = fc.integer({ min: 0, max: 255 });
const ipv4 = (first: fc.Arbitrary<number>) => fc.tuple(first, octet, octet, octet).map((p) => p.join('.'));
const privateV4 = fc.oneof(
  ipv4(fc.constant(10)),
  ipv4(fc.constant(127)),
  fc.tuple(octet, octet).map(([c, d]) => `192.168.${c}.${d}`),
  fc.tuple(octet, octet).map(([c, d]) => `169.254.${c}.${d}`),
);

async function reasonOf(url: string, rules = strict): Promise<string | undefined> {
  try {
    await checkWebhookUrl(url, rules);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return String((err as AppError).params.reasonCode);
  }
}

describe('the webhook address rule', () => {
  it('refuses private, loopback and link-local IPv4 addresses (also IPv4-mapped) unless a range allows them; the test switch allows loopback only', () => {
    fc.assert(
      fc.property(privateV4, (address) => {
        for (const form of [address, `::ffff:${address}`]) {
          expect(webhookAddressAllowed(form, strict)).toBe(false);
          expect(webhookAddressAllowed(form, { allowedCidrs: ['0.0.0.0/0'], allowPrivate: false })).toBe(true);
          expect([form, webhookAddressAllowed(form, { allowedCidrs: [], allowPrivate: true })]).toEqual([form, address.startsWith('127.')]);
        }
      }),
    );
    const testSwitch: DestinationRules = { allowedCidrs: [], allowPrivate: true };
    for (const a of ['::1', '0:0:0:0:0:0:0:1']) expect([a, webhookAddressAllowed(a, testSwitch)]).toEqual([a, true]);
    for (const a of ['fd00::5', 'fe80::1', '100.64.0.1', '0.0.0.0', '::']) expect([a, webhookAddressAllowed(a, testSwitch)]).toEqual([a, false]);
  });

  it('a range allows exactly the addresses inside it', () => {
    fc.assert(
      fc.property(ipv4(octet), fc.integer({ min: 8, max: 32 }), ipv4(octet), (base, bits, probe) => {
        const mask = (a: string) => a.split('.').reduce((n, o) => n * 256 + Number(o), 0) >>> (32 - bits);
        expect(insideCidrs(probe, [`${base}/${bits}`])).toBe(bits === 32 ? probe === base : mask(probe) === mask(base));
      }),
    );
    expect(insideCidrs('fd00::5', ['fd00::/8'])).toBe(true);
    expect(insideCidrs('10.0.0.1', ['fd00::/8'])).toBe(false);
    expect(insideCidrs('not an address', ['0.0.0.0/0'])).toBe(false);
  });

  it('URLs: https on public addresses; http and private addresses only inside the ranges', async () => {
    expect(await reasonOf('https://93.184.215.14/in')).toBeUndefined();
    expect(await reasonOf('https://[2606:2800:220:1:248:1893:25c8:1946]/in')).toBeUndefined();
    expect(await reasonOf('http://93.184.215.14/in')).toBe('https_required');
    expect(await reasonOf('https://10.0.0.1/in')).toBe('private_address');
    expect(await reasonOf('https://[fe80::1]/in')).toBe('private_address');
    expect(await reasonOf('https://localhost/in')).toBe('private_address');
    expect(await reasonOf('http://10.0.0.1/in', { allowedCidrs: ['10.0.0.0/8'], allowPrivate: false })).toBeUndefined();
    expect(await reasonOf('http://127.0.0.1/in', { allowedCidrs: [], allowPrivate: true })).toBe('https_required');
    expect(await reasonOf('https://127.0.0.1/in', { allowedCidrs: [], allowPrivate: true })).toBeUndefined();
    expect(await reasonOf('https://10.1.2.3/in', { allowedCidrs: [], allowPrivate: true })).toBe('private_address');
    expect(await reasonOf('wss://93.184.215.14/in')).toBe('webhook_url');
  });
});
