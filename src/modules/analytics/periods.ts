/**
 * A period split into whole rollup periods and the raw remainder at its edges: the exact
 * answer for any bounds is the rollup rows of the whole periods plus the raw clicks and events
 * of the rest. Instants are milliseconds; periods align to the Unix epoch (UTC days).
 */

export type Level = 'q' | 'h' | 'd';

export const LEVEL_MS: Record<Level, number> = { q: 900_000, h: 3_600_000, d: 86_400_000 };

/** `from` inclusive; `to` exclusive unless `toInclusive`; undefined: no limit on that side. */
export interface Span {
  from?: number;
  to?: number;
  toInclusive?: boolean;
}

export interface RollupSpan {
  level: Level;
  /** Buckets starting at or after `from` and before `to` (undefined: no limit). */
  from?: number;
  to?: number;
}

export interface Split {
  rollups: RollupSpan[];
  raw: Span[];
}

const floorTo = (at: number, unit: number) => Math.floor(at / unit) * unit;
const ceilTo = (at: number, unit: number) => Math.ceil(at / unit) * unit;

/**
 * Splits `span` into whole periods of `levels` (coarsest first) and raw pieces: at each level,
 * the whole periods inside what is left, the ends handed down to the next level, what no level
 * covers read raw.
 */
export function splitSpan(span: Span, levels: readonly Level[]): Split {
  const out: Split = { rollups: [], raw: [] };
  const walk = (from: number | undefined, to: number | undefined, toInclusive: boolean, depth: number) => {
    if (from !== undefined && to !== undefined && (from > to || (from === to && !toInclusive))) return;
    const level = levels[depth];
    if (!level) {
      out.raw.push({ from, to, toInclusive });
      return;
    }
    const unit = LEVEL_MS[level];
    const first = from === undefined ? undefined : ceilTo(from, unit);
    const end = to === undefined ? undefined : floorTo(to, unit);
    if (first !== undefined && end !== undefined && first >= end) return walk(from, to, toInclusive, depth + 1);
    if (first !== undefined && from !== first) walk(from, first, false, depth + 1);
    out.rollups.push({ level, from: first, to: end });
    if (end !== undefined && (end < to! || toInclusive)) walk(end, to, toInclusive, depth + 1);
  };
  walk(span.from, span.to, span.toInclusive ?? false, 0);
  return out;
}
