/**
 * A link's qrCode URL is built by hand (qr/design.ts): it must be the very string URLSearchParams
 * would write, for any text and design.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formEncode, qrImageUrl, type QrDesign } from '../../../src/modules/qr/design.js';

const viaSearchParams = (baseUrl: string, text: string, d: QrDesign, format: 'png' | 'svg') => {
  const q = new URLSearchParams({
    text,
    size: String(d.size),
    errorCorrection: d.errorCorrection,
    foreground: d.foreground,
    background: d.background,
    margin: String(d.margin),
    format,
  });
  if (d.logoId) q.set('logoId', d.logoId);
  return `${baseUrl}/api/qr?${q.toString()}`;
};

describe('qrImageUrl', () => {
  it('encodes any string as URLSearchParams does (spaces, reserved characters, non-ASCII, lone surrogates)', () => {
    for (const s of [' ', "!'()~*-._", 'a b+c&d=e', 'é€😀', '\uD800x', '%20', 'https://lt.test/ab?x=1#y'])
      expect(formEncode(s)).toBe(new URLSearchParams({ v: s }).toString().slice(2));
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(formEncode(s)).toBe(new URLSearchParams({ v: s }).toString().slice(2));
      }),
    );
  });

  it('writes the same URL as URLSearchParams for any text and design', () => {
    const design = fc.record({
      size: fc.integer({ min: 64, max: 2048 }),
      errorCorrection: fc.constantFrom('L', 'M', 'Q', 'H'),
      foreground: fc.string(),
      background: fc.string(),
      margin: fc.integer({ min: 0, max: 16 }),
      logoId: fc.option(fc.uuid(), { nil: null }),
    }) as fc.Arbitrary<QrDesign>;
    fc.assert(
      fc.property(fc.string(), design, fc.constantFrom('png' as const, 'svg' as const), (text, d, format) => {
        expect(qrImageUrl('https://lt.test', text, d, format)).toBe(viaSearchParams('https://lt.test', text, d, format));
      }),
    );
  });

  it('stays right over a run of links whose origins and designs repeat or change (the encoded parts are reused)', () => {
    const design = fc.record({
      size: fc.constantFrom(300, 600),
      errorCorrection: fc.constantFrom('M', 'H'),
      foreground: fc.constantFrom('#000000', '#1a2b3c'),
      background: fc.constantFrom('#ffffff', 'white smoke'),
      margin: fc.constantFrom(0, 2),
      logoId: fc.option(fc.constant('9f1c2d3e-0000-4000-8000-000000000001'), { nil: null }),
    }) as fc.Arbitrary<QrDesign>;
    const text = fc
      .tuple(fc.constantFrom('https://lt.test/', 'https://ex ample.test/é/', 'no-slash', 'https://lt.test/a/'), fc.string({ unit: 'binary', maxLength: 12 }))
      .map(([o, t]) => o + t);
    fc.assert(
      fc.property(fc.array(fc.tuple(text, design, fc.constantFrom('png' as const, 'svg' as const)), { minLength: 1, maxLength: 20 }), (run) => {
        for (const [t, d, format] of run) expect(qrImageUrl('https://lt.test', t, d, format)).toBe(viaSearchParams('https://lt.test', t, d, format));
      }),
    );
  });
});
