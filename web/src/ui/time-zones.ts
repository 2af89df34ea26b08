/**
 * The time zones a picker offers: the browser's own first, then UTC, then every zone the
 * browser knows by name, each with its current offset from UTC ("UTC+05:30"). Pure, no DOM.
 */
export interface Zone {
  name: string;
  /** "UTC+05:30", "UTC-03:00", "UTC+00:00" */
  offset: string;
  /** What a search matches: the name and the offset, lower case, `_` as a space. */
  key: string;
}

/**
 * Today's names of the zones that ICU (so Chromium and Node) still lists under an older one:
 * Intl.supportedValuesOf gives "Asia/Calcutta", not "Asia/Kolkata". Both are valid IANA names
 * (the API takes either); the picker offers today's and finds the zone by either.
 */
const RENAMED: Record<string, string> = {
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Asia/Rangoon': 'Asia/Yangon',
  'Europe/Kiev': 'Europe/Kyiv',
  'America/Godthab': 'America/Nuuk',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Africa/Asmera': 'Africa/Asmara',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca',
  'America/Cordoba': 'America/Argentina/Cordoba',
  'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Mendoza': 'America/Argentina/Mendoza',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Louisville': 'America/Kentucky/Louisville',
  'America/Coral_Harbour': 'America/Atikokan',
  'Pacific/Truk': 'Pacific/Chuuk',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Pacific/Enderbury': 'Pacific/Kanton',
};
const OLD_NAME = new Map(Object.entries(RENAMED).map(([old, now]) => [now, old]));
const todays = (name: string) => RENAMED[name] ?? name;

export const browserZone = (): string => todays(Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');

/** The offset of `zone` at `at` as "UTC±hh:mm"; "" when the zone is unknown. */
export function utcOffset(zone: string, at: Date): string {
  try {
    const part = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(at).find((p) => p.type === 'timeZoneName');
    // "GMT+05:30" → "UTC+05:30"; zero is "GMT" in some engines and "GMT+00:00" in others.
    const offset = (part?.value ?? '').replace(/^GMT/, 'UTC');
    return offset === 'UTC' ? 'UTC+00:00' : offset;
  } catch {
    return '';
  }
}

const keyOf = (name: string, offset: string) => `${name} ${OLD_NAME.get(name) ?? ''} ${offset}`.toLowerCase().replace(/_/g, ' ');

/** Every zone, the browser's first and UTC second, the rest by name; `current` is kept even if the list lacks it. */
export function zoneList(current: string, at = new Date()): Zone[] {
  const names = new Set((typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []).map(todays));
  names.add(current);
  const first = [browserZone(), 'UTC'];
  const rest = [...names].filter((n) => !first.includes(n)).sort();
  return [...new Set([...first, ...rest])].map((name) => {
    const offset = utcOffset(name, at);
    return { name, offset, key: keyOf(name, offset) };
  });
}

/** The zones matching what was typed: every word (spaces or `/`) in the name, its older name or the offset. */
export function matchZones(zones: Zone[], query: string): Zone[] {
  const words = query
    .toLowerCase()
    .replace(/_/g, ' ')
    .split(/[\s/]+/)
    .filter(Boolean);
  if (words.length === 0) return zones;
  return zones.filter((z) => words.every((w) => z.key.includes(w)));
}
