import type { RejectedRow } from '../job-source.js';
import { rejected } from './records.js';

import type { Written } from '../written.js';

export { nothingWritten, type Written } from '../written.js';

/** A record with the line it came from. */
export interface Line<R> {
  line: number;
  record: R;
}

/** What the records are called in messages. */
export const KIND_NAMES = {
  collection: { en: 'collection', ar: 'المجموعة' },
  tag: { en: 'tag', ar: 'الوسم' },
  partner: { en: 'partner', ar: 'الشريك' },
  link: { en: 'link', ar: 'الرابط' },
  customer: { en: 'customer', ar: 'العميل' },
  click: { en: 'click', ar: 'النقرة' },
  lead: { en: 'lead', ar: 'العميل المحتمل' },
  sale: { en: 'sale', ar: 'عملية البيع' },
} as const;

export type Kind = keyof typeof KIND_NAMES;

/** A reference to a record that is not here: `field` names the missing `kind` `id`. */
export function missing(line: number, field: string, kind: Kind, id: string): RejectedRow {
  const { ok: _ok, ...row } = rejected(line, field, 'reference_missing', { kind: KIND_NAMES[kind].en, kindAr: KIND_NAMES[kind].ar, id });
  return row;
}

/** A failure of the record itself (`deleted_here`, `id_taken`…). */
export function failed(line: number, field: string, reason: Parameters<typeof rejected>[2], params: Record<string, string | number> = {}): RejectedRow {
  const { ok: _ok, ...row } = rejected(line, field, reason, params);
  return row;
}

/**
 * The first line of each key (an id, an external id) of a batch; later ones repeat it and are
 * rejected: one statement cannot write one record twice. Across batches a repeat is simply the
 * record again (compared, updated).
 */
export function firstOfEach<R>(lines: Line<R>[], keys: (r: R) => (string | undefined)[], kind: Kind, w: Written): Line<R>[] {
  const seen = new Map<string, number>();
  return lines.filter(({ line, record }) => {
    const own = keys(record).filter((k): k is string => k !== undefined);
    const first = own.map((k) => seen.get(k)).find((l) => l !== undefined);
    if (first !== undefined) {
      w.failures.push(failed(line, 'id', 'duplicate_record_in_file', { kind: KIND_NAMES[kind].en, kindAr: KIND_NAMES[kind].ar, other: first }));
      return false;
    }
    for (const k of own) seen.set(k, line);
    return true;
  });
}

/** Deep equality of JSON values, object keys in any order (a record compared with what is stored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
