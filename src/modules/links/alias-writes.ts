import type { Ctx } from '../../core/context.js';
import { invalid } from '../../core/errors.js';
import type { Tx } from '../../db/connect.js';
import { claimedHosts } from '../domains/service.js';
import type { Alias } from './aliases.js';
import { keyHolders } from './key-store.js';
import { aliasHolders, replaceLinkAliases } from './store.js';

/** A write's entry as far as aliases go: its item index, its link id, its parsed aliases if given. */
interface AliasEntry {
  index: number;
  id?: string;
  fields: { aliases?: unknown };
}

interface Wanted {
  entry: AliasEntry;
  j: number;
  alias: Alias;
}

const keyOf = (a: Alias) => `${a.host}${a.path}`;

/**
 * Aliases of a bulk write, checked in two statements whatever the count: each on a host the
 * workspace claims (pending or active), none twice in the request, none held by a link outside
 * the request's own replaced lists, none a key of another link on that host (one namespace per
 * host, operations.md §21; a key given up less than 30 days ago included). The 400 names the
 * item and field (`[2].aliases[0]`).
 */
export async function checkAliases(tx: Tx, ctx: Ctx, entries: AliasEntry[]): Promise<void> {
  const wanted: Wanted[] = entries.flatMap((entry) => ((entry.fields.aliases as Alias[] | undefined) ?? []).map((alias, j) => ({ entry, j, alias })));
  if (wanted.length === 0) return;
  const field = (w: Wanted) => `[${w.entry.index}].aliases[${w.j}]`;
  const seen = new Map<string, Wanted>();
  for (const w of wanted) {
    const first = seen.get(keyOf(w.alias));
    if (first) throw invalid(field(w), 'duplicate_in_request', { other: first.entry.index });
    seen.set(keyOf(w.alias), w);
  }
  const held = await claimedHosts({ ctx: { ...ctx, db: tx }, input: [...new Set(wanted.map((w) => w.alias.host))] });
  for (const w of wanted) if (!held.has(w.alias.host)) throw invalid(field(w), 'alias_host_not_claimed', { host: w.alias.host });
  // Links whose lists this request replaces give theirs up (so aliases can move between them).
  const replacing = new Set(entries.filter((e) => e.id && e.fields.aliases !== undefined).map((e) => e.id!));
  for (const h of await aliasHolders(
    tx,
    wanted.map((w) => w.alias),
  )) {
    if (!replacing.has(h.linkId)) throw invalid(field(seen.get(keyOf(h))!), 'alias_taken');
  }
  for (const h of await keyHolders(
    tx,
    wanted.map((w) => ({ host: w.alias.host, key: w.alias.path.slice(1) })),
  )) {
    const w = seen.get(`${h.host}/${h.key}`)!;
    if (h.linkId !== w.entry.id) throw invalid(field(w), 'alias_taken');
  }
}

/** Writes the alias lists the entries carry (ids assigned): two statements whatever the count. */
export async function writeAliases(tx: Tx, workspaceId: string, entries: AliasEntry[]): Promise<void> {
  const given = entries.filter((e) => e.fields.aliases !== undefined);
  if (given.length === 0) return;
  await replaceLinkAliases(
    tx,
    workspaceId,
    given.filter((e) => e.id).map((e) => e.id!),
    given.map((e) => ({ linkId: e.id!, aliases: e.fields.aliases as Alias[] })),
  );
}

/** Frees the aliases of deleted links. */
export function freeAliases(tx: Tx, workspaceId: string, linkIds: string[]): Promise<void> {
  return replaceLinkAliases(tx, workspaceId, linkIds, []);
}

/** Whether a unique violation is an alias taken by a concurrent write (not an external id). */
export function isAliasConflict(err: unknown): boolean {
  const e = err as { constraint?: string; table?: string; cause?: { constraint?: string; table?: string } };
  return [e?.constraint, e?.cause?.constraint].includes('link_aliases_pkey');
}
