import { createHmac } from 'node:crypto';
import mailchecker from 'mailchecker';
import { emailDomain, emailKey } from '../../core/email.js';
import { networkOf } from '../clicks/service.js';

/**
 * The facts the fraud rules judge a commission by, each a pure function: whether two e-mails are
 * one person's (selfReferral), whether a domain hands out throwaway inboxes (disposableEmail), and
 * the network an address belongs to (burst), kept as a keyed hash so no address is stored.
 */

const GMAIL = new Set(['gmail.com', 'googlemail.com']);

/** The form two addresses of one mailbox share: lower case; for Gmail also without dots and `+tag`. */
function mailboxOf(email: string): string {
  const key = emailKey(email);
  const at = key.lastIndexOf('@');
  if (at <= 0) return key;
  const domain = key.slice(at + 1);
  if (!GMAIL.has(domain)) return key;
  // Gmail delivers j.o.e+x@googlemail.com to joe@gmail.com: one inbox, so one person.
  const local = key.slice(0, at).split('+')[0]!.replaceAll('.', '');
  return local ? `${local}@gmail.com` : key;
}

/** Whether two e-mail addresses reach the same mailbox (ignoring case, and Gmail's dots and `+tag`). */
export function samePerson(a: string, b: string): boolean {
  const left = mailboxOf(a);
  return left.includes('@') && left === mailboxOf(b);
}

/**
 * Whether the address's domain, or a domain it is under, is on mailchecker's list of disposable
 * providers (shipped in the package, updated with its releases: no network call).
 */
export function isDisposableEmail(email: string): boolean {
  const list = mailchecker.blacklist();
  let domain = emailDomain(email);
  while (domain) {
    if (list.has(domain)) return true;
    const dot = domain.indexOf('.');
    domain = dot === -1 ? undefined : domain.slice(dot + 1);
  }
  return false;
}

/**
 * A keyed hash of the address's network (HMAC-SHA256, base64url, 22 characters: 132 bits), so
 * leads from one network can be counted while neither the address nor its network is stored.
 */
export function networkKey(ip: string, key: Buffer): string {
  return createHmac('sha256', key).update(networkOf(ip)).digest('base64url').slice(0, 22);
}
