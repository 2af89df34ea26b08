/**
 * IANA time zones for analytics: validation, offsets, local midnights, and how coarse the
 * rollups may be for a zone. Offsets come from the runtime's time-zone data (Intl).
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      timeZoneName: 'longOffset',
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The canonical name of a zone the runtime knows, or undefined. */
export function knownZone(zone: string): string | undefined {
  if (zone.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(zone)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The zone's offset from UTC at an instant, in seconds (east positive). */
export function offsetAt(zone: string, at: number): number {
  const name =
    formatter(zone)
      .formatToParts(at)
      .find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})(?::(\d{2}))?/.exec(name);
  if (!m) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4] ?? 0));
}

/** The local calendar date of an instant in a zone. */
function localDate(zone: string, at: number): [number, number, number] {
  const parts = formatter(zone).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return [get('year'), get('month'), get('day')];
}

/**
 * The first instant of a local date in a zone (its midnight, or the first instant after a
 * daylight-saving jump that skips midnight), given the instant of that date's UTC midnight.
 */
export function zonedDayStart(zone: string, utcMidnight: number): number {
  let at = utcMidnight - offsetAt(zone, utcMidnight) * 1000;
  const second = offsetAt(zone, at);
  at = utcMidnight - second * 1000;
  const target = new Date(utcMidnight);
  const want = [target.getUTCFullYear(), target.getUTCMonth() + 1, target.getUTCDate()];
  const sameDay = (t: number) => localDate(zone, t).every((v, i) => v === want[i]);
  // Midnight skipped by a jump: the day starts where the jump lands, within a few hours.
  if (!sameDay(at)) {
    for (let step = 1; step <= 16 && !sameDay(at); step++) at += 15 * 60_000;
  }
  // A jump back over midnight: an earlier instant may already be this date.
  while (sameDay(at - 15 * 60_000)) at -= 15 * 60_000;
  return at;
}

/**
 * The coarsest rollup period that never straddles a bucket edge of this zone: 'day' when its
 * offset is always 0, 'hour' when always whole hours, 'quarter' when whole quarter hours (all
 * zones since 1995), else 'none' (raw clicks only). Checked month by month over the years
 * asked for, clamped to 1970 – next year: clicks are stamped when they happen.
 */
export type Alignment = 'day' | 'hour' | 'quarter' | 'none';

const yearAlignment = new Map<string, Alignment>();
const RANK: Alignment[] = ['none', 'quarter', 'hour', 'day'];

function alignmentOfYear(zone: string, year: number): Alignment {
  const key = `${zone}\n${year}`;
  let found = yearAlignment.get(key);
  if (found) return found;
  found = 'day';
  for (let month = 0; month < 12; month++) {
    const offset = offsetAt(zone, Date.UTC(year, month, 1));
    const a: Alignment = offset === 0 ? 'day' : offset % 3600 === 0 ? 'hour' : offset % 900 === 0 ? 'quarter' : 'none';
    if (RANK.indexOf(a) < RANK.indexOf(found)) found = a;
  }
  yearAlignment.set(key, found);
  return found;
}

export function zoneAlignment(zone: string, from: number | undefined, to: number | undefined): Alignment {
  const first = Math.max(1970, from === undefined ? 1970 : new Date(from).getUTCFullYear());
  const last = Math.min(new Date().getUTCFullYear() + 1, to === undefined ? 9999 : new Date(to).getUTCFullYear());
  let worst: Alignment = 'day';
  for (let year = first; year <= last; year++) {
    const a = alignmentOfYear(zone, year);
    if (RANK.indexOf(a) < RANK.indexOf(worst)) worst = a;
    if (worst === 'none') break;
  }
  return worst;
}

/** `2026-03-01T00:00:00` and an offset in seconds as ISO 8601: `Z` for UTC itself, else ±HH:MM. */
export function withOffset(local: string, offsetSeconds: number, utc: boolean): string {
  if (utc && offsetSeconds === 0) return `${local}Z`;
  const sign = offsetSeconds < 0 ? '-' : '+';
  const abs = Math.abs(offsetSeconds);
  const hh = String(Math.floor(abs / 3600)).padStart(2, '0');
  const mm = String(Math.floor((abs % 3600) / 60)).padStart(2, '0');
  return `${local}${sign}${hh}:${mm}`;
}
