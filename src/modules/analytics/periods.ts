/**
 * A period split into whole rollup periods and the raw remainder at its edges: the exact
 * answer for any bounds is the rollup rows of the whole periods plus the raw clicks and events
 * of the rest. Instants are milliseconds; periods are UTC quarter hours, hours, days and calendar months.
 */

export type Level = 'q' | 'h' | 'd' | 'm';

const FIXED_MS = { q: 900_000, h: 3_600_000, d: 86_400_000 };

/** The start of the period of `level` holding `at`. */
export function floorTo(level: Level, at: number): number {
  if (level !== 'm') return Math.floor(at / FIXED_MS[level]) * FIXED_MS[level];
  const d = new Date(at);
  const start = new Date(0);
  start.setUTCFullYear(d.getUTCFullYear(), d.getUTCMonth(), 1);
  return start.getTime();
}

/** The first period start of `level` at or after `at`. */
export function ceilTo(level: Level, at: number): number {
  const floor = floorTo(level, at);
  if (floor === at) return at;
  if (level !== 'm') return floor + FIXED_MS[level];
  const next = new Date(floor);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return next.getTime();
}

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
    const first = from === undefined ? undefined : ceilTo(level, from);
    const end = to === undefined ? undefined : floorTo(level, to);
    if (first !== undefined && end !== undefined && first >= end) return walk(from, to, toInclusive, depth + 1);
    if (first !== undefined && from !== first) walk(from, first, false, depth + 1);
    out.rollups.push({ level, from: first, to: end });
    if (end !== undefined && (end < to! || toInclusive)) walk(end, to, toInclusive, depth + 1);
  };
  walk(span.from, span.to, span.toInclusive ?? false, 0);
  return out;
}
