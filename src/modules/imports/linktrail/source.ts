import type { Ctx } from '../../../core/context.js';
import { AppError } from '../../../core/errors.js';
import type { Scope } from '../../../core/scopes.js';
import type { BatchDeps } from '../apply-batch.js';
import type { JobBatch, JobSource, RejectedRow } from '../job-source.js';
import { checkExportFile, exportBatches, exportLines, typeOf, type ReadBatch } from './read.js';
import type { ClickRecord, CustomerRecord, LeadRecord, LinkRecord, ParsedLine, RecordType, SaleRecord } from './records.js';
import { writeClickRecords, writeLeadRecords, writeSaleRecords } from './write-events.js';
import { writeCustomerRecords } from './write-customers.js';
import { writeLinkRecords } from './write-links.js';
import { writeNamed } from './write-named.js';
import type { Line, Written } from './written.js';

/**
 * `source=linktrail` (operations.md §13): a workspace's export (GET /api/export, NDJSON) read
 * back, each record written through its own module's service, ids kept where free (ids.ts).
 */

/** The write scope each record type needs (links need the route's own, linksWrite). */
const SCOPE_OF: Record<RecordType, Scope> = {
  collection: 'collectionsWrite',
  tag: 'tagsWrite',
  partner: 'partnersWrite',
  link: 'linksWrite',
  customer: 'customersWrite',
  click: 'conversionsWrite',
  lead: 'conversionsWrite',
  sale: 'conversionsWrite',
};

/** Read through once: the lines that hold something, and the record types named. */
async function survey(file: Buffer): Promise<{ total: number; types: Set<string> }> {
  let total = 0;
  const types = new Set<string>();
  for await (const raw of exportLines(checkExportFile(file))) {
    total++;
    const type = raw.text === undefined ? undefined : typeOf(raw.text);
    if (type !== undefined) types.add(type);
  }
  return { total, types };
}

/** The records a Linktrail export holds (its non-blank lines); file-level problems throw their 400. */
export async function exportRecordCount(file: Buffer): Promise<number> {
  return (await survey(file)).total;
}

type Writer = (ctx: Ctx, deps: BatchDeps, lines: Line<never>[], tagNames: ReadonlyMap<string, string>) => Promise<Written>;

const WRITERS: Record<RecordType, Writer> = {
  collection: (ctx, _d, lines) => writeNamed(ctx, 'collection', lines),
  tag: (ctx, _d, lines) => writeNamed(ctx, 'tag', lines),
  partner: (ctx, _d, lines) => writeNamed(ctx, 'partner', lines),
  link: (ctx, deps, lines, tagNames) => writeLinkRecords(ctx, deps, lines as Line<LinkRecord>[], tagNames),
  customer: (ctx, _d, lines) => writeCustomerRecords(ctx, lines as Line<CustomerRecord>[]),
  click: (ctx, _d, lines) => writeClickRecords(ctx, lines as Line<ClickRecord>[]),
  lead: (ctx, _d, lines) => writeLeadRecords(ctx, lines as Line<LeadRecord>[]),
  sale: (ctx, _d, lines) => writeSaleRecords(ctx, lines as Line<SaleRecord>[]),
};

/** Writes a batch's lines after `afterLine`: its rejected lines reported, its records (all of one type) written. */
async function applyLines(ctx: Ctx, deps: BatchDeps, batch: ReadBatch, afterLine: number, tagNames: ReadonlyMap<string, string>) {
  const lines = batch.lines.filter((l) => l.line > afterLine);
  const rejected: RejectedRow[] = lines.flatMap((l) => (l.ok ? [] : [{ line: l.line, field: l.field, reason: l.reason, message: l.message }]));
  const records = lines.flatMap((l) => (l.ok ? [{ line: l.line, record: l.record as never }] : []));
  if (records.length === 0 || !batch.type) return { created: 0, updated: 0, unchanged: 0, failures: rejected };
  const written = await WRITERS[batch.type](ctx, deps, records, tagNames);
  return { ...written, failures: [...rejected, ...written.failures].sort((a, b) => a.line - b.line) };
}

/** Tag names by their id in the file: a link's tag that this workspace has under the same name is that tag. */
function rememberTags(lines: ParsedLine[], tagNames: Map<string, string>): void {
  for (const l of lines) if (l.ok && l.type === 'tag') tagNames.set(l.record.id, l.record.name as string);
}

export const linktrailSource: JobSource = {
  async check(_ctx, file, _options, scopes) {
    const { total, types } = await survey(file);
    const needed = [...new Set([...types].flatMap((t) => (t in SCOPE_OF ? [SCOPE_OF[t as RecordType]] : [])))].filter((s) => !scopes.has(s));
    if (needed.length) throw new AppError('missing_scopes', { scopes: needed.join(', ') }, { missingScopes: needed });
    return { total };
  },
  async *batches(file) {
    // Read from the file on every run (a resumed job reads it again from its start), never kept
    // from an earlier run: the names of the tags on the lines before each batch.
    const tagNames = new Map<string, string>();
    for await (const batch of exportBatches(file)) {
      rememberTags(batch.lines, tagNames);
      const job: JobBatch = {
        lastLine: batch.lastLine,
        count: batch.lines.length,
        apply: (ctx, deps, afterLine) => applyLines(ctx, deps, batch, afterLine, tagNames),
      };
      yield job;
    }
  },
};
