import mailchecker from 'mailchecker';
import { emailDomain, emailKey } from '../../core/email.js';

/**
 * The facts the fraud rules judge a commission by, each a pure function: whether two e-mails are
 * one person's (selfReferral) and whether a domain hands out throwaway inboxes (disposableEmail).
 * The network burst counts by is the clicks module's (visitors.ts networkOf, kept as a keyed hash).
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
