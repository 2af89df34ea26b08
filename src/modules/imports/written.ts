import { translate, translateReason, type ReasonCode } from '../../i18n/messages.js';
import type { RejectedRow } from './job-source.js';

/** What writing one batch's rows (records) did, each counted once; every source's writers share it. */
export interface Written {
  created: number;
  updated: number;
  unchanged: number;
  failures: RejectedRow[];
}

export const nothingWritten = (): Written => ({ created: 0, updated: 0, unchanged: 0, failures: [] });

/** A rejected row: its line, field and reason, with the message in both languages. */
export function rejectedRow(line: number, field: string, reason: ReasonCode, params: Record<string, string | number> = {}): RejectedRow {
  const r = translateReason(reason, params);
  return { line, field, reason, message: translate('invalid_field', { ...params, field, reason: r.en, reasonAr: r.ar }) };
}
