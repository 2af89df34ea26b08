import type { Ctx } from '../../../core/context.js';
import { AppError } from '../../../core/errors.js';
import { translate, translateReason, type ReasonCode } from '../../../i18n/messages.js';
import { claimHostsForImport } from '../../domains/service.js';
import { importMatches, parseAlias } from '../../links/service.js';
import type { BatchDeps } from '../apply-batch.js';
import type { RejectedRow } from '../job-source.js';

/**
 * The aliases (old short URLs) a batch's links keep. Their hosts are claimed for this workspace
 * as the CSV sources claim them (pending until verified). An alias this workspace cannot hold —
 * its host is another workspace's, or another link holds it (on the same server, the link the
 * export came from) — is left out and said so; the link is imported without it, since its clicks,
 * leads and sales need it.
 */

export interface AliasWish {
  line: number;
  /** The id the link has (or gets) here. */
  linkId: string;
  aliases: string[];
}

interface Verdict {
  reason: ReasonCode;
  params: Record<string, string>;
}

function leftOutRow(line: number, dropped: { url: string; verdict: Verdict }[]): RejectedRow {
  const first = dropped[0]!.verdict;
  const r = translateReason(first.reason, first.params);
  const what = dropped.map((d) => d.url).join(', ');
  return { line, field: 'aliases', reason: first.reason, message: translate('import_left_out', { what, reason: r.en, reasonAr: r.ar }), leftOut: true };
}

/** Parses each alias; an unreadable one gets its verdict. */
function parsed(url: string): { host: string; path: string } | Verdict {
  try {
    return parseAlias(url, 'aliases');
  } catch (err) {
    if (err instanceof AppError) return { reason: 'alias_invalid', params: {} };
    throw err;
  }
}

/** Each link's aliases as it keeps them (`https://host/path`), and a left-out row per link that lost any. */
export async function keptAliases(ctx: Ctx, deps: BatchDeps, wishes: AliasWish[]): Promise<{ kept: Map<string, string[]>; notes: Map<number, RejectedRow> }> {
  const read = wishes.map((w) => ({ w, aliases: w.aliases.map((url) => ({ url, a: parsed(url) })) }));
  const valid = read.flatMap((r) => r.aliases.flatMap(({ a }) => ('host' in a ? [a] : [])));
  const hosts = await claimHostsForImport({ ctx, deps: deps.domains, input: [...new Set(valid.map((a) => a.host))] });
  const { aliasOwners } = await importMatches({ ctx, deps: deps.links, input: { aliases: valid, externalIds: [], destinations: [] } });
  const takenInBatch = new Map<string, string>();
  const kept = new Map<string, string[]>();
  const notes = new Map<number, RejectedRow>();
  for (const { w, aliases } of read) {
    const keep: string[] = [];
    const dropped: { url: string; verdict: Verdict }[] = [];
    for (const { url, a } of aliases) {
      const verdict = 'host' in a ? verdictOf(a, w.linkId, hosts.get(a.host), aliasOwners, takenInBatch) : a;
      const stored = 'host' in a ? `https://${a.host}${a.path}` : url;
      if (verdict) dropped.push({ url, verdict });
      else if (!keep.includes(stored)) keep.push(stored);
    }
    kept.set(w.linkId, keep);
    if (dropped.length) notes.set(w.line, leftOutRow(w.line, dropped));
  }
  return { kept, notes };
}

function verdictOf(
  a: { host: string; path: string },
  linkId: string,
  host: Awaited<ReturnType<typeof claimHostsForImport>> extends Map<string, infer V> ? V | undefined : never,
  owners: Map<string, { linkId: string }>,
  takenInBatch: Map<string, string>,
): Verdict | undefined {
  if (host && !host.ok) return { reason: host.reason, params: host.params };
  const key = `${a.host}${a.path}`;
  const owner = owners.get(key)?.linkId ?? takenInBatch.get(key);
  if (owner !== undefined && owner !== linkId) return { reason: 'alias_taken', params: {} };
  takenInBatch.set(key, linkId);
  return undefined;
}
