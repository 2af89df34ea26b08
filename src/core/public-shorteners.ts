/**
 * The hosts of the well-known public link shorteners (operations.md §13, docs/imports.md): a
 * file exported from one of them names short URLs on a host its owner does not hold and can never
 * verify (its DNS is the service's), so an import claims none of them and makes no alias of their
 * short URLs. The links are imported; their old short URLs keep working at the old service, not
 * here. A subdomain of one of them (`www.bit.ly`) is that service's too. One list, kept in one
 * place: the docs repeat it.
 */
export const PUBLIC_SHORTENER_HOSTS: readonly string[] = [
  'bit.ly',
  'bitly.com',
  'j.mp',
  'tinyurl.com',
  't.co',
  'goo.gl',
  'ow.ly',
  'is.gd',
  'v.gd',
  'buff.ly',
  'rebrand.ly',
  'rb.gy',
  'short.io',
  'dub.sh',
  'cutt.ly',
  'shorturl.at',
  'tiny.cc',
];

const HOSTS = new Set(PUBLIC_SHORTENER_HOSTS);

/** Whether `host` (lower-case, as an alias stores it) is a public shortener's or a subdomain of one. */
export function isPublicShortenerHost(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (HOSTS.has(h)) return true;
  for (let dot = h.indexOf('.'); dot >= 0; dot = h.indexOf('.', dot + 1)) if (HOSTS.has(h.slice(dot + 1))) return true;
  return false;
}
