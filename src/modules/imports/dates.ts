/**
 * Creation dates as link services write them, to ISO 8601 in UTC:
 * - ISO 8601 with `Z` or an offset (Dub, Rebrandly `2024-05-01T10:20:30.000Z`, Shlink
 *   `2024-05-01T12:20:30+02:00`, Bitly's API `2024-05-01T10:20:30+0000`);
 * - `2024-05-01 10:20:30` or `2024-05-01` without a zone (YOURLS, spreadsheets): taken as UTC;
 * - `5/1/2024` or `5/1/2024 10:20[:30] [AM|PM]`, month first as US services write it: UTC;
 * - Unix time in seconds (10 digits or fewer) or milliseconds (13 digits).
 */

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;
const US = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[ T,]+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(AM|PM)?)?$/i;

interface Parts {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  ms: number;
  offsetMinutes: number;
}

/** The instant, or undefined when a part is out of range (Feb 30, 25:00…). */
function instant(p: Parts): string | undefined {
  const t = Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi, p.s, p.ms);
  const back = new Date(t);
  if (back.getUTCFullYear() !== p.y || back.getUTCMonth() !== p.mo - 1 || back.getUTCDate() !== p.d) return undefined;
  if (p.h > 23 || p.mi > 59 || p.s > 59) return undefined;
  return new Date(t - p.offsetMinutes * 60_000).toISOString();
}

function offsetOf(zone: string | undefined): number {
  if (!zone || zone.toUpperCase() === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
}

function fromIso(m: RegExpMatchArray): string | undefined {
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const ms = frac ? Math.floor(Number(`0${frac}`) * 1000) : 0;
  return instant({ y: +y!, mo: +mo!, d: +d!, h: +(h ?? 0), mi: +(mi ?? 0), s: +(s ?? 0), ms, offsetMinutes: offsetOf(zone) });
}

function fromUs(m: RegExpMatchArray): string | undefined {
  const [, mo, d, y, h, mi, s, meridiem] = m;
  let hour = +(h ?? 0);
  if (meridiem) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (meridiem.toUpperCase() === 'PM' ? 12 : 0);
  }
  return instant({ y: +y!, mo: +mo!, d: +d!, h: hour, mi: +(mi ?? 0), s: +(s ?? 0), ms: 0, offsetMinutes: 0 });
}

function fromUnix(text: string): string | undefined {
  if (/^\d{1,10}$/.test(text)) return new Date(Number(text) * 1000).toISOString();
  if (/^\d{13}$/.test(text)) return new Date(Number(text)).toISOString();
  return undefined;
}

/** ISO 8601 in UTC, or undefined when the text is no date this reader knows. */
export function parseImportDate(text: string): string | undefined {
  const iso = ISO.exec(text);
  if (iso) return fromIso(iso);
  const us = US.exec(text);
  if (us) return fromUs(us);
  return fromUnix(text);
}
