/**
 * Comparison with an earlier period (compare=previous|year, operations.md §14): which period,
 * and how its groups sit beside the current ones. Instants are milliseconds; days, months and
 * hours are those of the query's time zone, from the runtime's zone data (zones.ts).
 */
import type { Interval } from './dimensions.js';
import type { GroupRecord, PreviousFigures } from './store-groups.js';
import { offsetAt, withOffset, zonedDayStart } from './zones.js';

export type Compare = 'previous' | 'year';

/** `from` inclusive; `to` exclusive unless `toInclusive`. */
export interface Period {
  from: number;
  to: number;
  toInclusive: boolean;
}

const HOUR = 3_600_000;
const DAY = 86_400_000;
/** The first instant the database is sent (year 0001, as service.ts clamps bounds). */
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');

/** The wall-clock time of an instant in a zone, as the instant a UTC clock shows that time. */
const wallOf = (zone: string, at: number) => at + offsetAt(zone, at) * 1000;
/** The instant a zone's wall-clock time names (one a jump skips: read with the offset before it). */
function instantOf(zone: string, wall: number): number {
  return wall - offsetAt(zone, wall - offsetAt(zone, wall) * 1000) * 1000;
}
/** The local day of an instant, in days since 1970-01-01. */
const dayOf = (zone: string, at: number) => Math.floor(wallOf(zone, at) / DAY);
const monthOf = (zone: string, at: number) => {
  const wall = new Date(wallOf(zone, at));
  return wall.getUTCFullYear() * 12 + wall.getUTCMonth();
};
const isDayStart = (zone: string, at: number) => zonedDayStart(zone, dayOf(zone, at) * DAY) === at;
const hourStart = (zone: string, at: number) => at - (((wallOf(zone, at) % HOUR) + HOUR) % HOUR);

/** The UTC midnight of a calendar date (years 0–99 as such, not 1900–1999). */
function utcDate(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  return d.getTime();
}

/** The same local date and time one year before; 29 February becomes the 28th. */
function yearBefore(zone: string, at: number): number {
  const wall = new Date(wallOf(zone, at));
  const year = wall.getUTCFullYear() - 1;
  const month = wall.getUTCMonth();
  const day = Math.min(wall.getUTCDate(), new Date(utcDate(year, month + 1, 0)).getUTCDate());
  const midnight = utcDate(year, month, day);
  if (isDayStart(zone, at)) return zonedDayStart(zone, midnight);
  return instantOf(zone, midnight + (wall.getTime() - Math.floor(wall.getTime() / DAY) * DAY));
}

/**
 * The period `mode` compares `p` with. previous: the same length just before, in whole local
 * days when both bounds are local midnights (so a week across a clock change is still 7 days),
 * else in milliseconds; year: both bounds one year back. Clamped to year 0001.
 */
export function earlierPeriod(p: Period, mode: Compare, zone: string): Period {
  let earlier: Period;
  if (mode === 'year') earlier = { from: yearBefore(zone, p.from), to: yearBefore(zone, p.to), toInclusive: p.toInclusive };
  else if (!p.toInclusive && isDayStart(zone, p.from) && isDayStart(zone, p.to)) {
    const days = dayOf(zone, p.to) - dayOf(zone, p.from);
    earlier = { from: zonedDayStart(zone, (dayOf(zone, p.from) - days) * DAY), to: p.from, toInclusive: false };
  } else {
    const length = Math.max(0, p.to - p.from + (p.toInclusive ? 1 : 0));
    earlier = { from: p.from - length, to: p.from, toInclusive: false };
  }
  return { ...earlier, from: Math.max(earlier.from, FIRST_INSTANT), to: Math.max(earlier.to, FIRST_INSTANT) };
}

/** The first bucket of a period starting at `from`, as hour start, local day and local month numbers. */
function firstBucket(zone: string, from: number): { hour: number; day: number; month: number } {
  return { hour: hourStart(zone, from), day: dayOf(zone, from), month: monthOf(zone, from) };
}

/**
 * Where a bucket sits among the buckets of a period (0: the first), from its key as the
 * timeseries writes it: the local wall time and its offset, so no zone lookup per row.
 */
function placeOf(key: string, interval: Interval, first: ReturnType<typeof firstBucket>): number {
  if (interval === 'hour') return Math.floor((Date.parse(key) - first.hour) / HOUR);
  if (interval === 'day') return Date.parse(`${key.slice(0, 10)}T00:00:00Z`) / DAY - first.day;
  return Number(key.slice(0, 4)) * 12 + Number(key.slice(5, 7)) - 1 - first.month;
}

/** The start of the `index`-th bucket of a period starting at `from`. */
function bucketStart(zone: string, interval: Interval, from: number, index: number): number {
  if (interval === 'hour') return hourStart(zone, hourStart(zone, from) + index * HOUR);
  if (interval === 'day') return zonedDayStart(zone, (dayOf(zone, from) + index) * DAY);
  const month = monthOf(zone, from) + index;
  return zonedDayStart(zone, utcDate(Math.floor(month / 12), month % 12, 1));
}

/** A bucket's key as the timeseries writes it: local wall time and offset (Z for UTC asked for none). */
function bucketKey(zone: string, utc: boolean, start: number): string {
  return withOffset(new Date(wallOf(zone, start)).toISOString().slice(0, 19), offsetAt(zone, start), utc);
}

const figuresOf = (g: GroupRecord | undefined): PreviousFigures => ({
  clicks: g?.clicks ?? 0,
  leads: g?.leads ?? 0,
  sales: g?.sales ?? 0,
  revenue: g?.revenue ?? {},
});

/** A breakdown's rows, each with the same key's figures of the earlier period. */
export function besideByKey(current: GroupRecord[], earlier: GroupRecord[]): GroupRecord[] {
  const byKey = new Map(earlier.map((g) => [g.key, g]));
  return current.map((g) => ({ ...g, previous: figuresOf(byKey.get(g.key)) }));
}

export interface SeriesPlaces {
  zone: string;
  utc: boolean;
  interval: Interval;
  /** Where each period starts. */
  from: number;
  earlierFrom: number;
}

/**
 * Two whole timeseries (rows with data only) as one, oldest first: the i-th bucket of the
 * earlier period beside the i-th of the current one; a place only the earlier period has data
 * at gets a current row of zeros, so that no earlier figure is left out.
 */
export function besideByPlace(current: GroupRecord[], earlier: GroupRecord[], s: SeriesPlaces): GroupRecord[] {
  const placed = (rows: GroupRecord[], from: number) => {
    const first = firstBucket(s.zone, from);
    return new Map(rows.map((g) => [placeOf(g.key, s.interval, first), g]));
  };
  const now = placed(current, s.from);
  const before = placed(earlier, s.earlierFrom);
  const places = [...new Set([...now.keys(), ...before.keys()])].sort((a, b) => a - b);
  return places.map((i) => {
    const g = now.get(i) ?? {
      key: bucketKey(s.zone, s.utc, bucketStart(s.zone, s.interval, s.from, i)),
      clicks: 0,
      visitors: 0,
      leads: 0,
      sales: 0,
      saleAmount: 0,
      revenue: {},
      refunded: {},
    };
    return { ...g, previous: figuresOf(before.get(i)) };
  });
}
