import { domainToASCII } from 'node:url';

/**
 * The one form of a person's e-mail address, for every entry point that takes one (sign-up,
 * setup, sign-in, invitations, password reset, the operator's people, single sign-on): what is
 * stored and what is compared. `Victim@CORP.test.` and `victim@corp.test` are one mailbox, so
 * one account; so are `sam@bücher.example` and `sam@xn--bcher-kva.example`.
 */

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
/** RFC 5322 dot-atom: the local part every account e-mail has (ASCII; no leading, trailing or double dot). */
const LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
/** RFC 5321: 64 for the local part, 254 for the path's address. */
const MAX_LOCAL = 64;
export const MAX_EMAIL = 254;

/**
 * A domain in the form it is stored and compared: lower case, no trailing dot (the root of a
 * fully qualified name), an internationalized name as its punycode (node's UTS #46 mapping,
 * `url.domainToASCII`); undefined for anything that is not a host name of two labels or more.
 */
export function normalizeDomain(raw: string): string | undefined {
  const text = raw.trim().toLowerCase().replace(/\.$/, '');
  if (text === '' || /[\s/\\@?#%:[\]]/.test(text)) return undefined;
  const ascii = domainToASCII(text);
  const labels = ascii.split('.');
  if (ascii === '' || ascii.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!)) return undefined;
  return ascii;
}

/** The address lower-cased (accounts are unique ignoring case), its domain normalized; undefined when it is not one. */
export function normalizeEmail(raw: string): string | undefined {
  const text = raw.trim();
  const at = text.lastIndexOf('@');
  if (at <= 0) return undefined;
  const local = text.slice(0, at).toLowerCase();
  const domain = normalizeDomain(text.slice(at + 1));
  if (!domain || local.length > MAX_LOCAL || !LOCAL.test(local)) return undefined;
  const email = `${local}@${domain}`;
  return email.length <= MAX_EMAIL ? email : undefined;
}

/** For a lookup: the normalized address, or the text lower-cased when it is none (it then matches nobody new). */
export const emailKey = (raw: string): string => normalizeEmail(raw) ?? raw.trim().toLowerCase();

/** The domain of an e-mail address, normalized; undefined for anything else. */
export function emailDomain(email: string): string | undefined {
  const at = email.lastIndexOf('@');
  return at > 0 ? normalizeDomain(email.slice(at + 1)) : undefined;
}
