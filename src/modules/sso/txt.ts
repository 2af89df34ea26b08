import { Resolver } from 'node:dns/promises';

/** node:dns `resolveTxt`'s shape: each record as its strings. Injected so tests can answer. */
export type ResolveTxt = (name: string) => Promise<string[][]>;

/** The record that proves a domain: `_linktrail.<domain>` holding the token shown to the owner. */
export const txtNameOf = (domain: string): string => `_linktrail.${domain}`;

export type TxtVerdict =
  { ok: true } | { ok: false; reason: 'missing' } | { ok: false; reason: 'mismatch'; found: string[] } | { ok: false; reason: 'failed'; problem: string };

// NXDOMAIN and "no TXT at this name" both mean: the record has not been added (yet).
const ABSENT = new Set(['ENOTFOUND', 'ENODATA']);

/** Whether one of the records (its strings joined, as DNS splits long ones) is exactly the token. */
export function txtMatches(records: string[][], token: string): boolean {
  return records.some((chunks) => chunks.join('').trim() === token);
}

/** Looks the record up and judges it; never throws (a resolver failure is a verdict). */
export async function checkTxt(resolve: ResolveTxt, domain: string, token: string): Promise<TxtVerdict> {
  let records: string[][];
  try {
    records = await resolve(txtNameOf(domain));
  } catch (err) {
    const code = String((err as { code?: unknown }).code ?? 'EUNKNOWN');
    return ABSENT.has(code) ? { ok: false, reason: 'missing' } : { ok: false, reason: 'failed', problem: code };
  }
  if (records.length === 0) return { ok: false, reason: 'missing' };
  if (txtMatches(records, token)) return { ok: true };
  return { ok: false, reason: 'mismatch', found: records.slice(0, 5).map((c) => c.join('').slice(0, 100)) };
}

/** The system's resolver, or DNS_SERVERS; bounded (3 s a try, 2 tries). */
export function systemResolveTxt(servers: readonly string[]): ResolveTxt {
  return async (name) => {
    const resolver = new Resolver({ timeout: 3000, tries: 2 });
    if (servers.length) resolver.setServers([...servers]);
    try {
      return await resolver.resolveTxt(name);
    } finally {
      resolver.cancel();
    }
  };
}
