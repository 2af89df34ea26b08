import { setImmediate as nextTurn } from 'node:timers/promises';
import { headerOf, withoutBom } from '../csv-file.js';
import { csvRecords } from '../csv-records.js';
import { checkRowCount } from '../read-csv.js';
import type { AffiliateSource } from './fields.js';
import { planAffiliateFile, type FilePlan } from './formats.js';
import { partnerRow, referralRow, rejected, type ReadRow } from './rows.js';

/**
 * An affiliate tool's export read as the link imports read a CSV (csv-file.ts, csv-records.ts:
 * UTF-8, a BOM ignored, the delimiter found from the header, at most 100,000 rows), in batches
 * with the event loop free between them; each row checked on its own (rows.ts).
 */

const BATCH_ROWS = 500;
/** The first batch: small, so a job shows progress at once (as csv-source.ts's). */
const FIRST_BATCH_ROWS = 50;
const TURN_ROWS = 100;
/** Cells kept for the errors CSV; a larger row comes back without them. */
const KEPT_ROW_CHARS = 64 * 1024;

export interface AffiliateBatch {
  rows: ReadRow[];
  cells: Map<number, string[]>;
  endByte: number;
}

/** The file's columns and kind; file-level problems throw their 400. */
export function affiliateHeader(file: Buffer, source: AffiliateSource): { columns: string[]; plan: FilePlan } {
  const { columns } = headerOf(file);
  return { columns, plan: planAffiliateFile(columns, source) };
}

const lineOf = (r: ReadRow): number => (!r.ok ? r.line : 'partner' in r ? r.partner.line : r.referral.line);
export { lineOf as affiliateRowLine };

export async function* affiliateBatches(file: Buffer, source: AffiliateSource, now: number): AsyncGenerator<AffiliateBatch> {
  const { delimiter } = headerOf(file);
  const { plan } = affiliateHeader(file, source);
  const body = withoutBom(file);
  const offset = file.length - body.length;
  await checkRowCount(body, delimiter);
  let batch: AffiliateBatch = { rows: [], cells: new Map(), endByte: 0 };
  let size = FIRST_BATCH_ROWS;
  for await (const record of csvRecords(body, delimiter)) {
    batch.endByte = Math.min(offset + ('bytes' in record ? record.bytes : body.length), offset + body.length);
    if (record.line === 1) continue;
    if ('unclosedQuote' in record) batch.rows.push({ ok: false, ...rejected(record.line, 'row', 'unclosed_quote') });
    else if (record.cells.some((c) => c.trim() !== '')) {
      batch.rows.push(plan.kind === 'partners' ? partnerRow(plan.plan, record.line, record.cells) : referralRow(plan.plan, record.line, record.cells, now));
      if (record.cells.reduce((n, c) => n + c.length, 0) <= KEPT_ROW_CHARS) batch.cells.set(record.line, record.cells);
    }
    if (batch.rows.length >= size) {
      yield batch;
      batch = { rows: [], cells: new Map(), endByte: batch.endByte };
      size = BATCH_ROWS;
    }
    if (record.line % TURN_ROWS === 0) await nextTurn();
  }
  if (batch.rows.length > 0) yield batch;
}
