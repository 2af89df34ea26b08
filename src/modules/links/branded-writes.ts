import type { Ctx } from '../../core/context.js';
import { invalid } from '../../core/errors.js';
import type { Conn } from '../../db/connect.js';
import { claimedHosts, defaultDomainHost, normalizeHost } from '../domains/service.js';
import type { Alias } from './aliases.js';
import { claimKeys, freeKeys, keyHolders, keysThatAreShortIds, liveKeysOf } from './key-store.js';
import { isReservedKey, keyError } from './keys.js';
import { shortLinkHost } from './record.js';
import { aliasHolders } from './store.js';

/** A write's entry as far as its domain and key go (operations.md §21). */
export interface KeyEntry {
  index: number;
  id?: string;
  fields: { domain?: unknown; key?: unknown; aliases?: unknown };
}

/**
 * Where a write puts a link: its host ('' the short-link host) and key. key null on the
 * short-link host: reached by short id only; `byShortId` on a claimed host: the key is the
 * short id, known once the link is inserted.
 */
export interface Placement {
  entry: KeyEntry;
  host: string;
  key: string | null;
  byShortId: boolean;
  /** An update: the link gives up the key it holds first. */
  moves: boolean;
}

const NO_RESERVED = new Set<string>();
const placeKey = (host: string, key: string) => `${host}\n${key}`;

/** The hosts the entries name, as stored ('' the short-link host); a host the workspace does not hold active is the 400. */
async function resolveDomains(tx: Conn, ctx: Ctx, shortLinkBaseUrl: string, entries: KeyEntry[]): Promise<Map<KeyEntry, string>> {
  const shortHost = shortLinkHost(shortLinkBaseUrl).toLowerCase();
  const named = new Map<KeyEntry, string | undefined>();
  for (const e of entries) {
    if (typeof e.fields.domain !== 'string') continue;
    const raw = e.fields.domain.trim().toLowerCase();
    const verdict = raw === shortHost ? undefined : normalizeHost(raw, NO_RESERVED);
    named.set(e, verdict === undefined ? '' : verdict.ok ? verdict.host : undefined);
  }
  const claimed = [...new Set([...named.values()].filter((h): h is string => !!h))];
  const held = await claimedHosts({ ctx: { ...ctx, db: tx }, input: claimed });
  const out = new Map<KeyEntry, string>();
  for (const [e, host] of named) {
    if (host === undefined || (host !== '' && held.get(host) !== 'active')) {
      throw keyError('domain_not_active', `[${e.index}].domain`, { domain: String(e.fields.domain).slice(0, 300) });
    }
    out.set(e, host);
  }
  return out;
}

/**
 * Where each entry puts its link: inserts all (on the workspace's default domain unless they
 * name one), updates that name a domain or a key. An update keeps its chosen key when only the
 * domain changes; a key equal to the link's own short id is no chosen key.
 */
export async function placeLinks(
  tx: Conn,
  ctx: Ctx,
  shortLinkBaseUrl: string,
  o: { inserts: KeyEntry[]; updates: KeyEntry[]; shortIdOf: (id: string) => string },
): Promise<Placement[]> {
  const updates = o.updates.filter((e) => e.fields.domain !== undefined || e.fields.key !== undefined);
  const hosts = await resolveDomains(tx, ctx, shortLinkBaseUrl, [...o.inserts, ...updates]);
  const defaultHost = o.inserts.some((e) => !hosts.has(e)) ? ((await defaultDomainHost({ ctx: { ...ctx, db: tx } })) ?? '') : '';
  const out: Placement[] = [];
  for (const e of o.inserts) {
    const host = hosts.get(e) ?? defaultHost;
    const key = (e.fields.key as string | undefined) ?? null;
    // A new link by short id on the short-link host has nothing to write.
    if (host !== '' || key !== null) out.push({ entry: e, host, key, byShortId: host !== '' && key === null, moves: false });
  }
  const current = new Map(
    (
      await liveKeysOf(
        tx,
        ctx.workspace.id,
        updates.map((e) => e.id!),
      )
    ).map((k) => [k.linkId, k]),
  );
  for (const e of updates) {
    const now = current.get(e.id!);
    const shortId = o.shortIdOf(e.id!);
    const host = hosts.get(e) ?? now?.host ?? '';
    const chosen = e.fields.key !== undefined ? (e.fields.key as string | null) : now && now.key !== shortId ? now.key : null;
    const key = host === '' ? (chosen === shortId ? null : chosen) : (chosen ?? shortId);
    const unchanged = key === null ? now === undefined : now?.host === host && now.key === key;
    if (!unchanged) out.push({ entry: e, host, key, byShortId: false, moves: true });
  }
  return out;
}

/** The field a key's 400 names: the key when the item gave one, else the domain that moved it. */
const fieldOf = (p: Placement) => `[${p.entry.index}].${p.entry.fields.key !== undefined || p.entry.fields.domain === undefined ? 'key' : 'domain'}`;

/**
 * The keys of a write are free (operations.md §21): none twice in the request; on the
 * short-link host none a path the service serves nor an existing short id; none held by
 * another link or given up less than 30 days ago; on a claimed host none an alias there (of
 * another link than one whose aliases this request replaces, or of this request). A handful of
 * statements whatever the count.
 */
export async function checkKeys(tx: Conn, placements: Placement[], entries: KeyEntry[], shortLinkBaseUrl: string): Promise<void> {
  const keyed = placements.filter((p): p is Placement & { key: string } => p.key !== null);
  if (keyed.length === 0) return;
  const domainOf = (p: Placement) => (p.host === '' ? shortLinkHost(shortLinkBaseUrl) : p.host);
  const taken = (p: Placement) => keyError('key_taken', fieldOf(p), { key: p.key ?? '', domain: domainOf(p) });
  const seen = new Map<string, Placement>();
  for (const p of keyed) {
    const first = seen.get(placeKey(p.host, p.key));
    if (first) throw invalid(fieldOf(p), 'duplicate_in_request', { other: first.entry.index });
    seen.set(placeKey(p.host, p.key), p);
    if (p.host === '' && isReservedKey(p.key)) throw keyError('key_reserved', fieldOf(p), { key: p.key });
  }
  const shortIds = await keysThatAreShortIds(
    tx,
    keyed.filter((p) => p.host === '').map((p) => p.key),
  );
  for (const p of keyed) if (p.host === '' && shortIds.has(p.key)) throw taken(p);
  for (const h of await keyHolders(tx, keyed)) {
    const p = seen.get(placeKey(h.host, h.key))!;
    if (h.linkId !== p.entry.id) throw taken(p);
  }
  const onClaimed = keyed.filter((p) => p.host !== '');
  const requested = new Set(entries.flatMap((e) => ((e.fields.aliases as Alias[] | undefined) ?? []).map((a) => `${a.host}\n${a.path}`)));
  for (const p of onClaimed) if (requested.has(`${p.host}\n/${p.key}`)) throw taken(p);
  const replacing = new Set(entries.filter((e) => e.id && e.fields.aliases !== undefined).map((e) => e.id!));
  for (const h of await aliasHolders(
    tx,
    onClaimed.map((p) => ({ host: p.host, path: `/${p.key}` })),
  )) {
    if (!replacing.has(h.linkId)) throw taken(seen.get(placeKey(h.host, h.path.slice(1)))!);
  }
}

/**
 * Writes the placements once the links exist (inserts' short ids known): the moved links give
 * up their keys (held 30 days), then each takes its new one. A key a concurrent write took
 * after checkKeys is the same 400.
 */
export async function writeKeys(
  tx: Conn,
  workspaceId: string,
  placements: Placement[],
  o: { shortIdOf: (id: string) => string; shortLinkBaseUrl: string },
): Promise<void> {
  if (placements.length === 0) return;
  await freeKeys(
    tx,
    workspaceId,
    placements.filter((p) => p.moves).map((p) => p.entry.id!),
  );
  const claims = placements.flatMap((p) => {
    const key = p.byShortId ? o.shortIdOf(p.entry.id!) : p.key;
    return key === null ? [] : [{ p, linkId: p.entry.id!, host: p.host, key }];
  });
  const written = await claimKeys(tx, workspaceId, claims);
  const lost = claims.find((c) => !written.has(placeKey(c.host, c.key)));
  if (lost) throw keyError('key_taken', fieldOf(lost.p), { key: lost.key, domain: lost.host || shortLinkHost(o.shortLinkBaseUrl) });
}

/** Deleted links give up their keys: each stays taken 30 days. */
export function freeKeysOfDeleted(tx: Conn, workspaceId: string, linkIds: string[]): Promise<void> {
  return freeKeys(tx, workspaceId, linkIds);
}

/** Of freshly drawn short ids, those already a key on the short-link host (a short id never shadows a key). */
export async function shortIdsTakenAsKeys(tx: Conn, shortIds: string[]): Promise<Set<string>> {
  return new Set(
    (
      await keyHolders(
        tx,
        shortIds.map((key) => ({ host: '', key })),
      )
    ).map((h) => h.key),
  );
}
