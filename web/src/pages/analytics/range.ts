/**
 * Date ranges in a chosen time zone: what to ask GET /api/analytics for (startDate, endDate,
 * interval) and which buckets the chart shows. Buckets are wall-clock keys in that zone
 * ('2026-03-01T13' an hour, '2026-03-01' a day, '2026-03' a month): the API answers only
 * buckets with activity, keyed by their local start with its offset, so a key's first
 * characters name the same bucket.
 */
export type Interval = 'hour' | 'day' | 'month';
export const PRESETS = ['today', '24h', '7d', '30d', 'mtd', '90d', '12m', 'all'] as const;
export type Preset = (typeof PRESETS)[number];
export const DEFAULT_PRESET: Preset = '30d';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface Resolved {
  startDate?: string;
  endDate?: string;
  interval: Interval;
  /** Every bucket of the range, oldest first; undefined for all time (the data decides). */
  buckets?: string[];
}

/** The API's bucket key (2026-03-01T13:00:00+05:30) as a wall-clock key of the interval. */
export function bucketOf(key: string, interval: Interval): string {
  return key.slice(0, interval === 'hour' ? 13 : interval === 'day' ? 10 : 7);
}

/** A wall-clock key as seconds since the epoch read as UTC (the chart shows it in UTC, i.e. as written). */
export function bucketSeconds(bucket: string): number {
  const [y, m, rest] = bucket.split('-');
  const [d, h] = (rest ?? '01').split('T');
  return Date.UTC(Number(y), Number(m) - 1, Number(d ?? 1), Number(h ?? 0)) / 1000;
}

/** YYYY-MM-DD of a real calendar date, else false. */
export function isDate(value: string | undefined): value is string {
  const m = value ? DATE.exec(value) : null;
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

export function isZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The browser's own zone. */
export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

const wallFormats = new Map<string, Intl.DateTimeFormat>();
/** The wall-clock hour key of an instant in a zone (2026-03-01T13). */
export function wallHour(at: number, zone: string): string {
  let f = wallFormats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', hourCycle: 'h23' });
    wallFormats.set(zone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(new Date(at)).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}`;
}

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export function addDays(date: string, n: number): string {
  return iso(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS);
}
function addMonths(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number);
  const d = new Date(Date.UTC(y!, m! - 1 + n, 1));
  return iso(d.getTime()).slice(0, 7);
}
/** Whole days from one date to another (end - start). */
export function daysBetween(start: string, end: string): number {
  return Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / DAY_MS);
}

function dayRange(start: string, end: string): string[] {
  const n = daysBetween(start, end);
  return Array.from({ length: n + 1 }, (_, i) => addDays(start, i));
}
export function monthRange(start: string, end: string): string[] {
  const out: string[] = [];
  for (let m = start; m <= end && out.length < 1200; m = addMonths(m, 1)) out.push(m);
  return out;
}

/** The interval a span of whole days is shown in: hours up to two days, months beyond about three months. */
export function intervalFor(days: number): Interval {
  return days <= 2 ? 'hour' : days <= 92 ? 'day' : 'month';
}

/** A preset, or custom start and end dates (checked beforehand), in a zone, at a moment. */
export function resolveRange(range: Preset | { start: string; end: string }, zone: string, now = Date.now()): Resolved {
  const today = wallHour(now, zone).slice(0, 10);
  if (typeof range === 'object') {
    const interval = intervalFor(daysBetween(range.start, range.end) + 1);
    const days = dayRange(range.start, range.end);
    const buckets =
      interval === 'hour'
        ? days.flatMap((d) => Array.from({ length: 24 }, (_, h) => `${d}T${String(h).padStart(2, '0')}`))
        : interval === 'day'
          ? days
          : monthRange(range.start.slice(0, 7), range.end.slice(0, 7));
    return { startDate: range.start, endDate: range.end, interval, buckets };
  }
  switch (range) {
    case 'today':
      // Today in the zone, hour by hour, to now.
      return { startDate: today, interval: 'hour', buckets: Array.from({ length: 24 }, (_, h) => `${today}T${String(h).padStart(2, '0')}`) };
    case 'mtd': {
      // The calendar month so far, day by day.
      const start = `${today.slice(0, 7)}-01`;
      return { startDate: start, interval: 'day', buckets: dayRange(start, today) };
    }
    case '24h': {
      // The last 24 hours to the minute; the buckets are the hours they touch.
      const start = now - 24 * HOUR_MS;
      const buckets = [...new Set(Array.from({ length: 25 }, (_, i) => wallHour(start + i * HOUR_MS, zone)))];
      return { startDate: new Date(start).toISOString(), interval: 'hour', buckets };
    }
    case '7d':
    case '30d':
    case '90d': {
      const start = addDays(today, -(Number(range.slice(0, -1)) - 1));
      return { startDate: start, interval: 'day', buckets: dayRange(start, today) };
    }
    case '12m': {
      const start = addMonths(today.slice(0, 7), -11);
      return { startDate: `${start}-01`, interval: 'month', buckets: monthRange(start, today.slice(0, 7)) };
    }
    case 'all':
      return { interval: 'month' };
  }
}
