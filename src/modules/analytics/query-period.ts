import { invalidQuery } from '../../core/errors.js';
import { zonedDayStart } from './zones.js';

/*
 * The period of a query's startDate/endDate, read strictly (analytics, its CSV, audit and event
 * lists, and the links' figures all read their bounds this way).
 */

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):(\d{2}))$/i;

/**
 * The instants a bound may take to the database: years 0001–9999, all that four-digit dates
 * can name once their offset or whole day is applied. Beyond them (year 0, year 10000)
 * PostgreSQL would refuse the value as sent, and no click is stamped there anyway.
 */
export const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

export interface Bound {
  at: number;
  /** The bound itself is excluded (a date-only endDate: before the next day starts). */
  exclusive: boolean;
}

/** The instant of a calendar date and time of day in UTC, or undefined if there is no such date or time. */
function utcInstant(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number | undefined {
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day); // not Date.UTC: it reads years 0–99 as 1900–1999
  d.setUTCHours(hour, minute, second, ms);
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day ? d.getTime() : undefined;
}

/**
 * A date bound. A date alone means that whole day in `zone` (UTC by default): startDate from
 * its first instant, endDate up to (not including) the next day's first instant, whatever the
 * timestamps' precision. Dates are read strictly (no 30 February, no 24:00, offsets up to
 * 23:59); fractions of a second beyond milliseconds are dropped.
 */
export function parseBound(field: 'startDate' | 'endDate', value: string | undefined, zone?: string): Bound | undefined {
  if (value === undefined) return undefined;
  const bad = () => invalidQuery(field, 'format', { format: 'ISO 8601 date or date-time' });
  const date = DATE_ONLY.exec(value);
  if (date) {
    const at = utcInstant(Number(date[1]), Number(date[2]), Number(date[3]));
    if (at === undefined) throw bad();
    const dayStart = (utcMidnight: number) => (zone ? zonedDayStart(zone, utcMidnight) : utcMidnight);
    return field === 'endDate' ? { at: dayStart(at + 86_400_000), exclusive: true } : { at: dayStart(at), exclusive: false };
  }
  const m = DATE_TIME.exec(value);
  if (!m) throw bad();
  const [, y, mo, d, h, mi, sec, fraction, sign, oh, om] = m;
  const ms = fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'));
  const local = utcInstant(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(sec ?? 0), ms);
  if (local === undefined || (oh !== undefined && (Number(oh) > 23 || Number(om) > 59))) throw bad();
  const offsetMinutes = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  return { at: local - offsetMinutes * 60_000, exclusive: false };
}

/**
 * The period as the database may be asked for it: a start before year 0001 or an end after
 * 9999 is no limit on that side; a start after 9999 or an end before 0001 leaves nothing.
 */
export function clampPeriod(start: Bound | undefined, end: Bound | undefined): { start?: Date; end?: Date; endExclusive?: boolean } | 'empty' {
  if ((start && start.at > LAST_INSTANT) || (end && end.at < FIRST_INSTANT)) return 'empty';
  const from = start && start.at >= FIRST_INSTANT ? new Date(start.at) : undefined;
  if (!end || end.at > LAST_INSTANT) return { start: from };
  return { start: from, end: new Date(end.at), endExclusive: end.exclusive };
}

/**
 * The period of `startDate`/`endDate` as the database reads it: strict dates, an empty or
 * reversed period refused (the caller's mistake), bounds clamped to the years 0001–9999.
 */
export function periodOf(q: { startDate?: string; endDate?: string }, zone?: string): ReturnType<typeof clampPeriod> {
  const start = parseBound('startDate', q.startDate, zone);
  const end = parseBound('endDate', q.endDate, zone);
  if (start && end && (start.at > end.at || (end.exclusive && start.at >= end.at))) throw invalidQuery('startDate', 'start_after_end');
  return clampPeriod(start, end);
}
