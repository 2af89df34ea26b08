/**
 * Whether a partner's link may point at a URL (operations.md §18 "Partner portal"): under one of
 * the program's prefixes — same scheme, host (lower-case, punycode, as the URL parser writes it)
 * and port, the path starting at a `/` boundary of the prefix's, and no user info. Answers the
 * URL as parsed (dot segments resolved), which is what the link stores: the destination checked
 * is the one visitors reach.
 */
export function underPrefix(url: string, prefixes: readonly string[]): string | undefined {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return undefined;
  }
  if (target.username || target.password) return undefined;
  const fits = prefixes.some((raw) => {
    let prefix: URL;
    try {
      prefix = new URL(raw);
    } catch {
      return false;
    }
    if (prefix.protocol !== target.protocol || prefix.host !== target.host) return false;
    const base = prefix.pathname;
    return base.endsWith('/') ? target.pathname.startsWith(base) : target.pathname === base || target.pathname.startsWith(`${base}/`);
  });
  return fits ? target.href : undefined;
}
