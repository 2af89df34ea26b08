import type { Ctx } from '../../../core/context.js';
import { checkHttpsUrl } from '../../../core/url-rule.js';
import type { RejectedRow } from '../job-source.js';
import { collections } from '../../collections/service.js';
import { importLinks, linkHolders, linksByIds, type ImportedLink, type Link } from '../../links/service.js';
import { partners } from '../../partners/service.js';
import { tagIdsByName, tags } from '../../tags/service.js';
import type { BatchDeps } from '../apply-batch.js';
import { writeRows } from '../write-rows.js';
import { resolveReferences, targetsOf, type Target } from './ids.js';
import { keptAliases } from './link-aliases.js';
import type { LinkRecord } from './records.js';
import { failed, firstOfEach, missing, nothingWritten, sameJson, type Line, type Written } from './written.js';

/**
 * Links of an export, written through the links service (importLinks): a new link keeps its id,
 * dates and, when free on this server, its short id (else it gets a new one, as on the server it
 * came from, where the source link holds it); its collection, tags and partner are the records
 * they became here; it keeps the aliases it can (link-aliases.ts). A link already here is
 * updated when a field differs, unchanged otherwise.
 */

const COMPARED = [
  'url',
  'title',
  'description',
  'image',
  'utm',
  'expiresAt',
  'expiredUrl',
  'password',
  'cloaked',
  'ios',
  'android',
  'geo',
  'collectionId',
  'tagIds',
  'externalId',
  'tenantId',
  'partnerId',
  'aliases',
] as const;

type Fields = Record<(typeof COMPARED)[number], unknown>;

interface References {
  collections: Map<string, string>;
  tags: Map<string, string>;
  partners: Map<string, string>;
}

/** Where the batch's references point here; a tag not imported under its id is found by its name (`tagNames`, from the file). */
async function referencesOf(ctx: Ctx, lines: Line<LinkRecord>[], tagNames: ReadonlyMap<string, string>): Promise<References> {
  const tagIds = [...new Set(lines.flatMap((l) => (l.record.tagIds as string[] | undefined) ?? []))];
  const byId = await resolveReferences(ctx, tagIds, (ids) => tags.holders({ ctx, input: ids }));
  const unresolved = tagIds.filter((t) => !byId.has(t) && tagNames.has(t));
  if (unresolved.length) {
    const byName = await tagIdsByName({ ctx, input: unresolved.map((t) => tagNames.get(t)!) });
    for (const t of unresolved) {
      const id = byName.get(tagNames.get(t)!.toLowerCase());
      if (id) byId.set(t, id);
    }
  }
  const partnerIds = lines.flatMap((l) => (typeof l.record.partnerId === 'string' ? [l.record.partnerId] : []));
  return {
    collections: await resolveReferences(
      ctx,
      lines.map((l) => l.record.collectionId),
      (ids) => collections.holders({ ctx, input: ids }),
    ),
    tags: byId,
    partners: await resolveReferences(ctx, partnerIds, (ids) => partners.holders({ ctx, input: ids })),
  };
}

/** The link's fields with its references as they are here, or the first one that is not. */
function mapped(line: number, r: LinkRecord, refs: References): Omit<Fields, 'aliases'> | RejectedRow {
  const collectionId = refs.collections.get(r.collectionId);
  if (!collectionId) return missing(line, 'collectionId', 'collection', r.collectionId);
  const tagIds: string[] = [];
  for (const [j, t] of ((r.tagIds as string[] | undefined) ?? []).entries()) {
    const id = refs.tags.get(t);
    if (!id) return missing(line, `tagIds[${j}]`, 'tag', t);
    if (!tagIds.includes(id)) tagIds.push(id);
  }
  const partnerId = typeof r.partnerId === 'string' ? refs.partners.get(r.partnerId) : null;
  if (partnerId === undefined) return missing(line, 'partnerId', 'partner', r.partnerId as string);
  const value = (f: string) => r[f] ?? null;
  return {
    url: r.url,
    title: value('title'),
    description: value('description'),
    image: value('image'),
    utm: value('utm'),
    expiresAt: value('expiresAt'),
    expiredUrl: value('expiredUrl'),
    password: value('password'),
    cloaked: r.cloaked ?? false,
    ios: value('ios'),
    android: value('android'),
    geo: value('geo'),
    collectionId,
    tagIds,
    externalId: value('externalId'),
    tenantId: value('tenantId'),
    partnerId,
  };
}

const asStored = (url: unknown) => {
  if (typeof url !== 'string') return url;
  const v = checkHttpsUrl(url);
  return v.ok ? v.href : url;
};

/** A field as stored, so that a record and a link compare equal when a write would change nothing. */
function comparable(f: (typeof COMPARED)[number], value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (f === 'expiresAt') return new Date(value as string).toISOString();
  if (f === 'url' || f === 'image' || f === 'expiredUrl' || f === 'ios' || f === 'android') return asStored(value);
  if (f === 'utm' || f === 'geo') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined);
    return entries.length ? Object.fromEntries(entries.map(([k, v]) => [k, f === 'geo' ? asStored(v) : v])) : null;
  }
  return value;
}

const differs = (wanted: Fields, link: Link) => COMPARED.some((f) => !sameJson(comparable(f, wanted[f]), comparable(f, link[f])));

/** A create takes no nulls (but geo's): absent is the same. */
const withoutNulls = (f: Fields) => Object.fromEntries(Object.entries(f).filter(([k, v]) => v !== null || k === 'geo'));

/** The short id the link had: its own field (operations.md §21: shortUrl may end in a chosen key), else shortUrl's last segment. */
const shortIdOf = (record: { shortId?: unknown; shortUrl?: unknown }): string | undefined => {
  if (typeof record.shortId === 'string') return record.shortId;
  const { shortUrl } = record;
  if (typeof shortUrl !== 'string') return undefined;
  return shortUrl.slice(shortUrl.lastIndexOf('/') + 1) || undefined;
};

interface Candidate extends Line<LinkRecord> {
  target: Target;
  fields: Omit<Fields, 'aliases'>;
}

export async function writeLinkRecords(ctx: Ctx, deps: BatchDeps, all: Line<LinkRecord>[], tagNames: ReadonlyMap<string, string>): Promise<Written> {
  const w = nothingWritten();
  const lines = firstOfEach(all, (r) => [r.id], 'link', w);
  const targets = await targetsOf(
    ctx,
    lines.map((l) => l.record.id),
    (ids) => linkHolders({ ctx, input: ids }),
  );
  const refs = await referencesOf(ctx, lines, tagNames);
  const candidates: Candidate[] = [];
  for (const l of lines) {
    const target = targets.get(l.record.id)!;
    if (target.state === 'deleted' || target.state === 'taken') {
      w.failures.push(failed(l.line, 'id', target.state === 'deleted' ? 'deleted_here' : 'id_taken'));
      continue;
    }
    const fields = mapped(l.line, l.record, refs);
    if ('reason' in fields) w.failures.push(fields);
    else candidates.push({ ...l, target, fields });
  }
  const { kept, notes } = await keptAliases(
    ctx,
    deps,
    candidates.map((c) => ({ line: c.line, linkId: c.target.id, aliases: (c.record.aliases as string[] | undefined) ?? [] })),
  );
  const current = new Map(
    (await linksByIds({ ctx, deps: deps.links, input: candidates.filter((c) => c.target.state === 'live').map((c) => c.target.id) })).map((l) => [l.id, l]),
  );
  const writes: (ImportedLink & { line: number })[] = [];
  const unchanged: number[] = [];
  for (const c of candidates) {
    const wanted: Fields = { ...c.fields, aliases: kept.get(c.target.id) ?? [] };
    const link = current.get(c.target.id);
    if (link && !differs(wanted, link)) unchanged.push(c.line);
    else if (link) writes.push({ line: c.line, id: c.target.id, update: true, fields: wanted });
    else {
      const { createdAt, updatedAt } = c.record;
      writes.push({
        line: c.line,
        id: c.target.id,
        update: false,
        fields: withoutNulls(wanted),
        shortId: shortIdOf(c.record as { shortId?: unknown; shortUrl?: unknown }),
        createdAt,
        updatedAt,
      });
    }
  }
  const done = await writeRows(ctx, writes, (cx, left) => importLinks({ ctx: cx, deps: deps.links, input: left }), w.failures);
  for (const d of done) {
    if (d.update) w.updated++;
    else w.created++;
  }
  w.unchanged += unchanged.length;
  for (const line of [...done.map((d) => d.line), ...unchanged]) if (notes.has(line)) w.failures.push(notes.get(line)!);
  return w;
}
