import { Resolver } from 'node:dns/promises';

/** What a TXT query found: the records (each one's strings joined), none, or a failure. */
export type TxtAnswer = { kind: 'records'; values: string[] } | { kind: 'none' } | { kind: 'failed'; code: string };

// NXDOMAIN and "no TXT at this name" both mean: the record has not been added (yet).
const ABSENT = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * The TXT records at `name`, through the given resolvers (`ip` or `ip:port`) or the system's.
 * Bounded: 3 s per try, 2 tries, so a dead resolver costs a verify request ~6 s, never a hang.
 * Never throws: a resolver error is an answer the caller explains.
 */
export async function lookupTxt(name: string, servers: readonly string[]): Promise<TxtAnswer> {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  if (servers.length) resolver.setServers([...servers]);
  try {
    const records = await resolver.resolveTxt(name);
    return records.length ? { kind: 'records', values: records.map((chunks) => chunks.join('')) } : { kind: 'none' };
  } catch (err) {
    const code = String((err as { code?: unknown }).code ?? 'EUNKNOWN');
    return ABSENT.has(code) ? { kind: 'none' } : { kind: 'failed', code };
  } finally {
    resolver.cancel();
  }
}
