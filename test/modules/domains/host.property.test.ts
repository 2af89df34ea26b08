/** The host rule (domains/host.ts) over many inputs: one canonical form, idempotent, never an IP. */
import { isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeHost } from '../../../src/modules/domains/host.js';

const NONE = new Set<string>();
// Not `xn--…`: those must be valid punycode, which random text is not.
const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,20}[a-z0-9])?$/).filter((l) => !l.startsWith('xn--'));
const tld = fc.stringMatching(/^[a-z]{2,10}$/);
const host = fc.tuple(fc.array(label, { minLength: 1, maxLength: 4 }), tld).map(([ls, t]) => [...ls, t].join('.'));

/** Ways the same host may be written: case, a trailing dot, a port. */
const spelling = fc.tuple(host, fc.boolean(), fc.boolean(), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined })).map(([h, upper, dot, port]) => ({
  canonical: h,
  written: `${upper ? h.toUpperCase() : h}${dot ? '.' : ''}${port === undefined ? '' : `:${port}`}`,
}));

describe('normalizeHost', () => {
  it('every spelling of a host comes to one lower-case form without port or trailing dot, and that form is stable', () => {
    fc.assert(
      fc.property(spelling, ({ canonical, written }) => {
        const v = normalizeHost(written, NONE);
        expect(v).toEqual({ ok: true, host: canonical });
        expect(normalizeHost(canonical, NONE)).toEqual(v);
      }),
    );
  });

  it('internationalised names are stored in punycode, the same as their punycode spelling', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zäöüéçñ]{1,12}$/), tld, (name, t) => {
        const v = normalizeHost(`${name}.${t}`, NONE);
        if (!v.ok) return;
        expect(v.host).toMatch(/^[a-z0-9.-]+$/);
        expect(normalizeHost(v.host, NONE)).toEqual(v);
      }),
    );
  });

  it('IPv4 and IPv6 literals, in any spelling, are refused as IP literals', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.ipV4(),
          fc.ipV6().map((a) => `[${a}]`),
          fc.ipV6(),
        ),
        (ip) => {
          expect(normalizeHost(ip, NONE)).toEqual({ ok: false, problem: 'host_ip_literal' });
        },
      ),
    );
    for (const legacy of ['127.1', '0x7f.0.0.1', '2130706433.']) expect(normalizeHost(legacy, NONE)).toMatchObject({ ok: false });
  });

  it('whatever comes in, a verdict (never a throw), and an accepted host is no IP and has no port, path or space', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (raw) => {
        const v = normalizeHost(raw, NONE);
        if (v.ok) {
          expect(isIP(v.host)).toBe(0);
          expect(v.host).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
        }
      }),
    );
  });

  it('reserved hosts are refused in every spelling', () => {
    fc.assert(
      fc.property(spelling, ({ canonical, written }) => {
        expect(normalizeHost(written, new Set([canonical]))).toEqual({ ok: false, problem: 'host_reserved' });
      }),
    );
  });
});
