import { translate, translateReason, type ReasonCode } from '../../i18n/messages.js';
import { parseImportDate } from './dates.js';
import { cleanDestination, cleanShortUrl, shortUrlFrom, splitTags, text, type Verdict } from './fields.js';
import type { ImportField, ImportRow, ReadResult } from './row.js';
import type { ColumnPlan } from './sources.js';

/** A cell larger than this is no link's data (operations.md §13); a row, twice that. */
export const MAX_CELL_BYTES = 1024 * 1024;
export const MAX_ROW_BYTES = 2 * MAX_CELL_BYTES;

export interface RowContext {
  plan: ColumnPlan;
  columns: readonly string[];
  upgradeHttp: boolean;
  /** Old short URLs of the rows read so far, with their line: a second one fails naming the first. */
  seenShortUrls: Map<string, number>;
  /** The host for a keyword whose row names no domain. */
  defaultDomain?: string;
  /** When the file is read (ms): a creation date after it is not kept. */
  now: number;
}

/** The earliest creation date kept: before it a date is a spreadsheet's zero or a typo, not a link's. */
export const EARLIEST_CREATED_AT = Date.UTC(2000, 0, 1);

type Failure = Extract<ReadResult, { ok: false }>;

export function failure(line: number, field: string, reason: ReasonCode, params: Record<string, string | number> = {}): Failure {
  const r = translateReason(reason, params);
  return { ok: false, line, field, reason, message: translate('invalid_field', { ...params, field, reason: r.en, reasonAr: r.ar }) };
}

/** The first non-empty cell of the columns feeding `field`. */
function cellOf(ctx: RowContext, cells: readonly string[], field: ImportField): string | undefined {
  for (const at of ctx.plan[field] ?? []) {
    const cell = cells[at];
    if (cell !== undefined && cell.trim() !== '') return cell;
  }
  return undefined;
}

/** The field a column feeds (for naming an oversized cell), else the column's own name. */
function fieldOfColumn(ctx: RowContext, at: number): string {
  const entry = Object.entries(ctx.plan).find(([, indexes]) => indexes.includes(at));
  return entry ? entry[0] : (ctx.columns[at] ?? `column ${at + 1}`);
}

/**
 * A cell's UTF-8 size, exact only where it matters: a UTF-16 unit is 1 to 3 bytes, so a short
 * cell is under the limit and a cell longer than the limit in units is over it, uncounted.
 */
function byteSize(cell: string): number {
  if (cell.length * 3 <= MAX_CELL_BYTES || cell.length > MAX_ROW_BYTES) return cell.length;
  return Buffer.byteLength(cell);
}

function oversized(ctx: RowContext, line: number, cells: readonly string[]): Failure | undefined {
  let total = 0;
  for (const [at, cell] of cells.entries()) {
    const bytes = byteSize(cell);
    if (bytes > MAX_CELL_BYTES) return failure(line, fieldOfColumn(ctx, at), 'cell_too_big', { limit: MAX_CELL_BYTES });
    total += bytes;
  }
  return total > MAX_ROW_BYTES ? failure(line, 'row', 'row_too_big', { limit: MAX_ROW_BYTES }) : undefined;
}

function oldShortUrl(ctx: RowContext, cells: readonly string[]): Verdict<string> | undefined {
  const cell = cellOf(ctx, cells, 'shortUrl');
  if (cell !== undefined) return cleanShortUrl(cell);
  const keyword = cellOf(ctx, cells, 'keyword');
  const domain = cellOf(ctx, cells, 'domain') ?? ctx.defaultDomain;
  const built = keyword && domain ? shortUrlFrom(keyword, domain) : undefined;
  return built === undefined ? undefined : cleanShortUrl(built);
}

function utmOf(ctx: RowContext, cells: readonly string[]): ImportRow['utm'] {
  const utm: ImportRow['utm'] = {};
  for (const key of ['source', 'medium', 'campaign', 'term', 'content'] as const) {
    const value = text(cellOf(ctx, cells, `utm_${key}`));
    if (value !== undefined) utm[key] = value;
  }
  return utm;
}

/** Title, description, collection, externalId: trimmed text, only when given. */
function textFields(ctx: RowContext, cells: readonly string[]): Partial<ImportRow> {
  const out: Partial<ImportRow> = {};
  for (const field of ['title', 'description', 'collection', 'externalId'] as const) {
    const value = text(cellOf(ctx, cells, field));
    if (value !== undefined) out[field] = value;
  }
  return out;
}

/**
 * One record as an import row, or why it cannot be one; undefined for a blank row (spreadsheets
 * leave them, `,,,` included), which is no link and no error.
 */
export function buildRow(ctx: RowContext, line: number, cells: readonly string[]): ReadResult | undefined {
  if (cells.every((c) => c.trim() === '')) return undefined;
  const tooBig = oversized(ctx, line, cells);
  if (tooBig) return tooBig;
  const url = cleanDestination(cellOf(ctx, cells, 'url') ?? '', ctx.upgradeHttp);
  if (!url.ok) return failure(line, 'url', url.reason, url.params);
  const row: ImportRow = { line, url: url.value, ...textFields(ctx, cells), tags: splitTags(cellOf(ctx, cells, 'tags') ?? ''), utm: utmOf(ctx, cells) };
  const created = text(cellOf(ctx, cells, 'createdAt'));
  if (created !== undefined) {
    const iso = parseImportDate(created);
    if (iso === undefined) return failure(line, 'createdAt', 'import_date');
    const at = Date.parse(iso);
    if (at >= EARLIEST_CREATED_AT && at <= ctx.now) row.createdAt = iso;
    else {
      const { ok: _ok, line: _line, ...warning } = failure(line, 'createdAt', 'import_date_range', { date: iso });
      row.warnings = [warning];
    }
  }
  const short = oldShortUrl(ctx, cells);
  if (short && !short.ok) return failure(line, 'shortUrl', short.reason);
  if (short?.ok) {
    const first = ctx.seenShortUrls.get(short.value);
    if (first !== undefined) return failure(line, 'shortUrl', 'duplicate_in_file', { other: first });
    ctx.seenShortUrls.set(short.value, line);
    row.shortUrl = short.value;
  }
  return { ok: true, row };
}
