import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

/** Why a host cannot be claimed; each is its own 400 code (i18n/messages.ts). */
export type HostProblem = 'host_invalid' | 'host_ip_literal' | 'host_reserved';

export type HostVerdict = { ok: true; host: string } | { ok: false; problem: HostProblem };

// A DNS label after punycode: letters, digits and inner hyphens, 1 to 63 characters.
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const PORT = /:\d{1,5}$/;

/**
 * The form a host is stored and compared in: lower-case, punycode (WHATWG's domainToASCII, as
 * browsers send it in Host), without port or trailing dot. IP literals (also the forms the URL
 * parser reads as IPv4, such as `127.1`) and single-label names cannot be claimed. Pure.
 */
export function normalizeHost(raw: string, reserved: ReadonlySet<string>): HostVerdict {
  let text = raw.trim();
  if (text.startsWith('[') || isIP(text) !== 0) return { ok: false, problem: 'host_ip_literal' };
  if (PORT.test(text)) text = text.replace(PORT, '');
  if (text.endsWith('.')) text = text.slice(0, -1);
  // domainToASCII accepts percent-escapes and other URL syntax: only a bare name may come in.
  if (text === '' || /[\s/\\@?#%:[\]]/.test(text)) return { ok: false, problem: 'host_invalid' };
  const host = domainToASCII(text.toLowerCase());
  if (host === '') return { ok: false, problem: 'host_invalid' };
  if (isIP(host) !== 0) return { ok: false, problem: 'host_ip_literal' };
  const labels = host.split('.');
  if (host.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!)) {
    return { ok: false, problem: 'host_invalid' };
  }
  if (reserved.has(host)) return { ok: false, problem: 'host_reserved' };
  return { ok: true, host };
}

/** The TXT record that proves a claim: `_linktrail.<host>`. */
export const txtNameOf = (host: string): string => `_linktrail.${host}`;
