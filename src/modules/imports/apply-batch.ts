import type { Ctx } from '../../core/context.js';
import { isPublicShortenerHost } from '../../core/public-shorteners.js';
import type { ReasonCode } from '../../i18n/messages.js';
import { claimHostsForImport, type DomainDeps } from '../domains/service.js';
import type { PartnerDeps } from '../partners/service.js';
import { newId } from '../../db/ids.js';
import { destinationKey, importLinks, importMatches, parseAlias, type ImportedLink, type ImportMatches, type LinkDeps } from '../links/service.js';
import { failure } from './build-row.js';
import { actionFor, type Action, type Resolved } from './plan-rows.js';
import { collectionIds, tagIds } from './resolve-names.js';
import type { ImportRow, ReadResult } from './row.js';
import { writeRows, type RowFailure } from './write-rows.js';

/**
 * One batch of an import, written in the caller's transaction: names resolved (and created),
 * old short URLs' hosts claimed, rows matched to the links they already are, then the creates and
 * updates through the links service in chunks of the plan's bulk size. Per row, not atomic
 * (operations.md §13): a row the links service refuses is reported and the chunk retried
 * without it (write-rows.ts), so the good rows are written whatever the bad ones hold.
 */

export interface BatchDeps {
  links: LinkDeps;
  domains: DomainDeps;
  /** What partner writes are given (default links made for the partners an affiliate-tool import approves). */
  partners?: PartnerDeps;
}

export type { RowFailure };

export interface BatchOutcome {
  created: number;
  updated: number;
  unchanged: number;
  failures: RowFailure[];
}

/**
 * Links written per call of the links service (within the plan's bulk limit): on PGlite each
 * statement runs on the event loop, and one of 500 links took 50–230 ms (idle to loaded).
 */
const WRITE_CHUNK = 250;

/** Limits of the API's link schema (links/schemas.ts), which an import's rows do not pass through. */
const LIMITS = { title: 500, description: 2000, externalId: 255, utm: 500, tag: 50, tags: 100, collection: 190 };

/** A rejected row, worded as the reader words its own (build-row.ts). */
function fail(line: number, field: string, reason: ReasonCode, params: Record<string, string | number> = {}): RowFailure {
  const { ok: _ok, ...rejected } = failure(line, field, reason, params);
  return rejected;
}

/** The first field of a row longer than the API allows. */
function tooLong(row: ImportRow): RowFailure | undefined {
  const over = (field: string, value: string | undefined, limit: number) =>
    value !== undefined && value.length > limit ? fail(row.line, field, 'max_length', { limit }) : undefined;
  return (
    over('title', row.title, LIMITS.title) ??
    over('description', row.description, LIMITS.description) ??
    over('externalId', row.externalId, LIMITS.externalId) ??
    over('collection', row.collection, LIMITS.collection) ??
    Object.entries(row.utm)
      .map(([k, v]) => over(`utm_${k}`, v, LIMITS.utm))
      .find(Boolean) ??
    (row.tags.length > LIMITS.tags ? fail(row.line, 'tags', 'max_items', { limit: LIMITS.tags }) : undefined) ??
    row.tags.map((t) => over('tags', t, LIMITS.tag)).find(Boolean)
  );
}

interface Pending {
  row: ImportRow;
  /** The row's old short URL is a public shortener's (core/public-shorteners.ts): no alias, but one link per such URL in a file. */
  publicShortUrl?: string;
  alias?: { host: string; path: string; url: string };
  /** The row's old short URL is one of this server's own (a file exported here): the link's short id. */
  ownShortId?: string;
}

/** Rows whose fields fit, with their old short URL parsed; the others fail. */
function checkRows(rows: ImportRow[], failures: RowFailure[], ownHost: string, defaultCollection?: string): Pending[] {
  const out: Pending[] = [];
  for (const row of rows) {
    const long = tooLong(row);
    if (long) {
      failures.push(long);
      continue;
    }
    if ((row.collection ?? defaultCollection) === undefined) {
      failures.push(fail(row.line, 'collection', 'required'));
      continue;
    }
    if (!row.shortUrl) {
      out.push({ row });
      continue;
    }
    try {
      const a = parseAlias(row.shortUrl, 'shortUrl');
      // This server's short URL is the link itself, not an alias: the row updates the link it names.
      if (a.host === ownHost) out.push({ row, ownShortId: a.path.slice(1) });
      // A public shortener's short URL keeps working there: the link is imported without it.
      else if (isPublicShortenerHost(a.host)) out.push({ row, publicShortUrl: `https://${a.host}${a.path}` });
      else out.push({ row, alias: { ...a, url: `https://${a.host}${a.path}` } });
    } catch {
      failures.push(fail(row.line, 'shortUrl', 'short_url'));
    }
  }
  return out;
}

/** Drops rows whose host cannot carry this workspace's aliases. */
async function claimHosts(ctx: Ctx, deps: BatchDeps, pending: Pending[], failures: RowFailure[]): Promise<Pending[]> {
  const hosts = [...new Set(pending.flatMap((p) => (p.alias ? [p.alias.host] : [])))];
  if (hosts.length === 0) return pending;
  const verdicts = await claimHostsForImport({ ctx, deps: deps.domains, input: hosts });
  return pending.filter((p) => {
    const v = p.alias ? verdicts.get(p.alias.host) : undefined;
    if (!v || v.ok) return true;
    failures.push(fail(p.row.line, 'shortUrl', v.reason, v.params));
    return false;
  });
}

/** The link a row already is: its alias here, else its external id, else (with neither) its destination and title. */
function matchOf(ctx: Ctx, m: ImportMatches, p: Pending): { linkId?: string; taken?: boolean } {
  // A public shortener's URL made an alias before it was refused: the link that holds it is this row's.
  const aliasKey = p.alias ? `${p.alias.host}${p.alias.path}` : p.publicShortUrl?.slice('https://'.length);
  if (aliasKey !== undefined) {
    const owner = m.aliasOwners.get(aliasKey);
    if (owner?.workspaceId === ctx.workspace.id) return { linkId: owner.linkId };
    if (owner && p.alias) return { taken: true };
  }
  const own = p.ownShortId === undefined ? undefined : m.byShortId.get(p.ownShortId);
  if (own) return { linkId: own };
  if (p.row.externalId !== undefined) {
    const id = m.byExternalId.get(p.row.externalId);
    if (id) return { linkId: id };
  }
  if (!p.alias && p.row.externalId === undefined) return { linkId: m.byDestination.get(destinationKey(p.row.url, p.row.title)) };
  return {};
}

/** The key that makes two rows of one batch the same link. */
function sameLinkKey(p: Pending): string {
  if (p.alias) return `a:${p.alias.url}`;
  if (p.row.externalId !== undefined) return `e:${p.row.externalId}`;
  if (p.publicShortUrl) return `p:${p.publicShortUrl}`;
  return `d:${destinationKey(p.row.url, p.row.title)}`;
}

interface Planned {
  line: number;
  row: ImportRow;
  action: Action;
}

async function planActions(ctx: Ctx, deps: BatchDeps, pending: Pending[], failures: RowFailure[], defaultCollection?: string): Promise<Planned[]> {
  const collections = await collectionIds(
    ctx,
    pending.map((p) => p.row.collection ?? defaultCollection!),
  );
  const tags = await tagIds(
    ctx,
    pending.flatMap((p) => p.row.tags),
  );
  const matches = await importMatches({
    ctx,
    deps: deps.links,
    input: {
      aliases: pending.flatMap((p) =>
        p.alias ? [{ host: p.alias.host, path: p.alias.path }] : p.publicShortUrl ? [parseAlias(p.publicShortUrl, 'shortUrl')] : [],
      ),
      externalIds: pending.flatMap((p) => (p.row.externalId !== undefined ? [p.row.externalId] : [])),
      destinations: pending.filter((p) => !p.alias && p.row.externalId === undefined).map((p) => ({ url: p.row.url, title: p.row.title ?? '' })),
      shortIds: pending.flatMap((p) => (p.ownShortId !== undefined ? [p.ownShortId] : [])),
    },
  });
  const firstLine = new Map<string, number>();
  const planned: Planned[] = [];
  for (const p of pending) {
    const ref = p.row.collection ?? defaultCollection!;
    const collectionId = collections.get(ref);
    if (!collectionId) {
      failures.push(fail(p.row.line, 'collection', 'collection_unknown', { id: ref }));
      continue;
    }
    const match = matchOf(ctx, matches, p);
    if (match.taken) {
      failures.push(fail(p.row.line, 'shortUrl', 'alias_taken'));
      continue;
    }
    const key = match.linkId ? `l:${match.linkId}` : sameLinkKey(p);
    const first = firstLine.get(key);
    if (first !== undefined) {
      failures.push(fail(p.row.line, 'row', 'duplicate_row_in_file', { other: first }));
      continue;
    }
    firstLine.set(key, p.row.line);
    const resolved: Resolved = { row: p.row, collectionId, tagIds: p.row.tags.map((t) => tags.get(t.toLowerCase())!), alias: p.alias?.url };
    planned.push({ line: p.row.line, row: p.row, action: actionFor(resolved, match.linkId ? matches.links.get(match.linkId) : undefined) });
  }
  return planned;
}

/** A planned write as the links service takes an import's link: a new one with the file's creation date. */
function importedLink(p: Planned): ImportedLink {
  const { action } = p;
  if (action.kind === 'update') {
    const { id, ...fields } = action.input;
    return { id, update: true, fields: fields as ImportedLink['fields'] };
  }
  const fields = (action.kind === 'create' ? action.input : {}) as ImportedLink['fields'];
  return { id: newId(), update: false, fields, createdAt: p.row.createdAt };
}

/** Writes one chunk through the links service, a row failing alone (write-rows.ts). */
function writeChunk(ctx: Ctx, deps: BatchDeps, chunk: Planned[], failures: RowFailure[]): Promise<Planned[]> {
  return writeRows(ctx, chunk, (c, left) => importLinks({ ctx: c, deps: deps.links, input: left.map(importedLink) }), failures);
}

export async function applyBatch(ctx: Ctx, deps: BatchDeps, results: ReadResult[], defaultCollection?: string): Promise<BatchOutcome> {
  const failures: RowFailure[] = [];
  for (const r of results) if (!r.ok) failures.push({ line: r.line, field: r.field, reason: r.reason, message: r.message });
  const rows = results.flatMap((r) => (r.ok ? [r.row] : []));
  const ownHost = new URL(deps.links.shortLinkBaseUrl).hostname;
  const pending = await claimHosts(ctx, deps, checkRows(rows, failures, ownHost, defaultCollection), failures);
  const planned = await planActions(ctx, deps, pending, failures, defaultCollection);
  const outcome: BatchOutcome = { created: 0, updated: 0, unchanged: 0, failures };
  const writes = planned.filter((p) => p.action.kind !== 'unchanged');
  outcome.unchanged = planned.length - writes.length;
  const size = Math.min(WRITE_CHUNK, ctx.workspace.maxBulkItems);
  for (let at = 0; at < writes.length; at += size) {
    for (const p of await writeChunk(ctx, deps, writes.slice(at, at + size), failures)) {
      if (p.action.kind === 'create') outcome.created++;
      else outcome.updated++;
      // Written, without what the reader could not keep (a creation date out of range): listed, not failed.
      for (const w of p.row.warnings ?? []) failures.push({ line: p.line, ...w, leftOut: true });
    }
  }
  return outcome;
}
