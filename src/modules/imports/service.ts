import { isUtf8 } from 'node:buffer';
import { audit } from '../../core/audit.js';
import type { Ctx } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import { csvLine } from '../../core/csv.js';
import type { ListParams } from '../../core/list-params.js';
import type { Scope } from '../../core/scopes.js';
import { newId } from '../../db/ids.js';
import { withTransaction } from '../../core/transaction.js';
import { translate, translateReason, type MessageCode, type Params } from '../../i18n/messages.js';
import { isPublicShortenerHost } from '../../core/public-shorteners.js';
import { headerOf, withoutBom } from './csv-file.js';
import type { FileReads } from './file-reads.js';
import { checkRowCount, lineBreaks, readImportBatches } from './read-csv.js';
import { jobSource } from './job-sources.js';
import { exportRecordCount } from './linktrail/source.js';
import { affiliateBatches, affiliateHeader } from './affiliates/read.js';
import { PARTNER_FIELDS, REFERRAL_FIELDS, type AffiliateSource } from './affiliates/fields.js';
import type { ImportSource, ReadResult } from './row.js';
import { AFFILIATE_SOURCES, IMPORT_FIELDS, isAffiliateSource } from './row.js';
import { planColumns, sourceOfColumns } from './sources.js';
import * as store from './store.js';

export { ImportWorker, type ImportWorkerDeps } from './worker.js';
export { FileReads } from './file-reads.js';

/** What the request-side operations share: the places for reading files (file-reads.ts). */
export interface ImportDeps {
  reads: FileReads;
}

export const IMPORT_SOURCES = ['bitly', 'dub', 'shlink', 'rebrandly', 'csv', 'linktrail', ...AFFILIATE_SOURCES] as const;

/** What POST /api/imports is asked, besides the file. */
export interface ImportRequest {
  source?: ImportSource;
  collection?: string;
  mapping?: Record<string, string>;
  upgradeHttp?: boolean;
  domain?: string;
}

/** The API's Import record. */
export function toImport(row: store.ImportRowRecord) {
  const error = row.error ? { code: row.error.code, ...translate(row.error.code as MessageCode, row.error.params as Params) } : null;
  return {
    id: row.id,
    status: row.status,
    source: row.source,
    total: row.total,
    done: row.done,
    created: row.created,
    updated: row.updated,
    unchanged: row.unchanged,
    failed: row.failed,
    bytesRead: row.bytesRead,
    bytesTotal: row.bytesTotal,
    createdAt: row.createdAt,
    finishedAt: row.finishedAt,
    error,
  };
}

export type Import = ReturnType<typeof toImport>;

/** A file whose first character (after a BOM and blanks) opens a JSON object: a Linktrail export. */
function looksLikeExport(file: Buffer): boolean {
  return /^\uFEFF?\s*\{/.test(file.toString('utf8', 0, 256));
}

/** The source asked for, or the one the file looks like: a Linktrail export (NDJSON), else by the CSV header. */
function sourceOf(file: Buffer, asked: ImportSource | undefined): { source: ImportSource; detected: boolean } {
  if (asked) return { source: asked, detected: false };
  if (looksLikeExport(file)) return { source: 'linktrail', detected: true };
  const { columns } = headerOf(file);
  return { source: sourceOfColumns(columns), detected: true };
}

/** 409 naming the workspace's running import, when one runs. */
async function refuseWhileRunning(ctx: Ctx): Promise<void> {
  const running = await store.runningImportId(ctx.db, ctx.workspace.id);
  if (running !== undefined) throw new AppError('import_running', { id: running });
}

/**
 * Starts an import (operations.md §13): the file is read through once here (its rows counted,
 * the names it uses checked against the caller's scopes, a file-level problem refused before
 * anything is stored), then kept with the job for a worker of any instance to write. While
 * another import runs the file is not read at all; the read takes one of the workspace's places
 * (file-reads.ts).
 */
export async function startImport({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: ImportDeps;
  input: ImportRequest & { file: Buffer; scopes: ReadonlySet<Scope> };
}): Promise<Import> {
  await refuseWhileRunning(ctx);
  const row = await deps.reads.run(ctx.workspace.id, async () => {
    const { source } = sourceOf(input.file, input.source);
    const options: store.ImportOptions = { collection: input.collection, mapping: input.mapping, upgradeHttp: input.upgradeHttp, domain: input.domain };
    const checked = await jobSource(source).check(ctx, input.file, options, input.scopes);
    const job = {
      id: newId(),
      workspaceId: ctx.workspace.id,
      source,
      options: { ...options, columns: checked.columns },
      file: storedText(input.file),
      total: checked.total,
    };
    return withTransaction(ctx.db, async (tx) => {
      const inserted = await store.insertImport(tx, job);
      if (inserted) await audit(ctx, tx, { ids: [inserted.id] });
      return inserted;
    });
  });
  // Another import started while this file was read.
  if (!row) throw new AppError('import_running', { id: (await store.runningImportId(ctx.db, ctx.workspace.id)) ?? '' });
  return toImport(row);
}

/** The file as the job stores it: text, which every source has checked it is (UTF-8, no NUL). */
function storedText(file: Buffer): string {
  if (!isUtf8(file) || file.includes(0)) throw new AppError('import_not_csv', { detail: 'it is not valid UTF-8 text', detailAr: 'ليس نصًا صالحًا بترميز UTF-8' });
  return file.toString('utf8');
}

export async function getImport({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<Import> {
  const row = await store.findImport(ctx.db, ctx.workspace.id, input.id);
  if (!row) throw notFound('import', input.id);
  return toImport(row);
}

export async function listImports({ ctx, input }: { ctx: Ctx; input: ListParams }): Promise<Import[]> {
  return (await store.listImportRows(ctx.db, ctx.workspace.id, input)).map(toImport);
}

const ERROR_PAGE = 1000;

/**
 * The rejected rows as CSV: `line`, `field`, `reason`, `error` (in English), then the file's own
 * columns with the row's cells, so the rows can be fixed and imported again. Formula-guarded
 * (core/csv.ts); read a page at a time as the client reads.
 */
export async function importErrorsCsv({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<AsyncGenerator<string>> {
  const row = await store.findImport(ctx.db, ctx.workspace.id, input.id);
  if (!row) throw notFound('import', input.id);
  const columns = row.options.columns ?? [];
  return (async function* () {
    yield csvLine(['line', 'field', 'reason', 'error', ...columns]);
    for (let after = 0; ;) {
      const page = await store.importErrorRows(ctx.db, row.id, after, ERROR_PAGE);
      if (page.length > 0) yield page.map((e) => csvLine([e.line, e.field, e.reason, e.message, ...(e.cells ?? [])])).join('');
      if (page.length < ERROR_PAGE) return;
      after = page.at(-1)!.line;
    }
  })();
}

const PREVIEW_ROWS = 10;

/** A row of the preview as the dashboard shows it. */
function previewRow(r: ReadResult) {
  return r.ok ? { ok: true as const, ...r.row } : { ok: false as const, line: r.line, field: r.field, reason: r.reason, message: r.message };
}

/**
 * What an import of this file would read, before it starts: the source (given, or recognised
 * from the columns), the columns, which column each field reads, the number of rows, and the
 * first rows as they would be imported. The read takes one of the workspace's places (file-reads.ts).
 */
export async function previewImport({ ctx, deps, input }: { ctx: Ctx; deps: ImportDeps; input: ImportRequest & { file: Buffer } }) {
  return deps.reads.run(ctx.workspace.id, () => preview(input));
}

async function preview(input: ImportRequest & { file: Buffer }) {
  const { source, detected } = sourceOf(input.file, input.source);
  // A Linktrail export has no columns to map: its record count, the file's problems as a 400.
  if (source === 'linktrail')
    return {
      source,
      detected,
      columns: [],
      mapping: {},
      fields: [],
      total: await exportRecordCount(input.file),
      totalEstimated: false,
      collectionColumn: true,
      rows: [],
      publicShorteners: [],
    };
  if (isAffiliateSource(source)) return previewAffiliates(input.file, source);
  // The whole file's checks are native passes (size, NUL bytes, UTF-8): milliseconds at 50 MB.
  const { columns, delimiter } = headerOf(input.file);
  const plan = planColumns(columns, source, input.mapping);
  const mapping = Object.fromEntries(Object.entries(plan).map(([field, at]) => [field, columns[at[0]!]!]));
  const body = withoutBom(input.file);
  await checkRowCount(body, delimiter);
  // Only the head is read as rows: the rows shown, and the hosts of the rows read.
  const head = previewHead(input.file);
  const rows: ReadResult[] = [];
  let read = 0;
  const hostsRead = new Map<string, number>();
  for await (const batch of readImportBatches(head, { ...input, source })) {
    read += batch.results.length;
    for (const r of batch.results) {
      if (rows.length < PREVIEW_ROWS) rows.push(r);
      if (r.ok && r.row.shortUrl) {
        const host = new URL(r.row.shortUrl).hostname;
        hostsRead.set(host, (hostsRead.get(host) ?? 0) + 1);
      }
    }
  }
  const whole = head.length === input.file.length;
  return {
    source,
    detected,
    columns,
    mapping,
    fields: [...IMPORT_FIELDS],
    total: whole ? read : estimatedRows(input.file, head.length, read),
    totalEstimated: !whole,
    collectionColumn: plan.collection !== undefined,
    rows: rows.map(previewRow),
    publicShorteners: publicShortenersOf(hostsRead),
  };
}

/** An affiliate tool's export (operations.md §18): its columns, which of them feed which field, its rows counted; rows are partners or customers, not links, so none is shown. */
async function previewAffiliates(file: Buffer, source: AffiliateSource) {
  const { columns, plan } = affiliateHeader(file, source);
  let total = 0;
  for await (const batch of affiliateBatches(file, source, Date.now())) total += batch.rows.length;
  const mapping = Object.fromEntries(Object.entries(plan.plan).map(([field, at]) => [field, columns[(at as number[])[0]!]!]));
  return {
    source,
    detected: false,
    columns,
    mapping,
    fields: [...(plan.kind === 'partners' ? PARTNER_FIELDS : REFERRAL_FIELDS)],
    total,
    totalEstimated: false,
    collectionColumn: true,
    rows: [],
    publicShorteners: [],
  };
}

/** Bytes of a file a preview reads as rows: the head, cut after a record (PREVIEW_HEAD_BYTES or a little more). */
export const PREVIEW_HEAD_BYTES = 256 * 1024;

/**
 * The file's first records: at least PREVIEW_HEAD_BYTES, cut after a line break outside quotes
 * (an even number of `"` before it: RFC 4180 doubles a quote inside a quoted cell), or the whole
 * file when it is small or no such break comes within four times that (one huge cell).
 */
export function previewHead(file: Buffer): Buffer {
  if (file.length <= 2 * PREVIEW_HEAD_BYTES) return file;
  const end = Math.min(file.length, 4 * PREVIEW_HEAD_BYTES);
  let quotes = 0;
  for (let i = 0; i < end; i++) {
    if (file[i] === 0x22) quotes++;
    else if (file[i] === 0x0a && i >= PREVIEW_HEAD_BYTES && quotes % 2 === 0) return file.subarray(0, i + 1);
  }
  return file;
}

/**
 * The rows of a file whose head alone was read: the head's rows scaled by the file's line breaks
 * against the head's (exact for a file of one row a line; multi-line cells and blank lines are
 * assumed as frequent after the head as in it).
 */
function estimatedRows(file: Buffer, headBytes: number, headRows: number): number {
  return estimatedRowsForTest(file, headBytes, headRows);
}

/** estimatedRows, for its unit test. */
export function estimatedRowsForTest(file: Buffer, headBytes: number, headRows: number): number {
  const inHead = lineBreaks(file, 0, headBytes);
  if (inHead <= 1) return headRows;
  const after = lineBreaks(file, headBytes);
  const tail = file.at(-1) === 0x0a || file.at(-1) === 0x0d ? 0 : 1;
  // The header's line break is not a row's.
  return headRows + Math.round(((after + tail) * headRows) / (inHead - 1));
}

/** The public shorteners among the hosts of the old short URLs read, each with what becomes of its links. */
function publicShortenersOf(hosts: Map<string, number>) {
  return [...hosts]
    .filter(([host]) => isPublicShortenerHost(host))
    .map(([host, rows]) => ({ host, rows, message: translateReason('alias_host_public', { host }) }));
}
