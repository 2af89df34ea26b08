import type { RawClick, Utm } from './record.js';

/**
 * One raw click per line, tab-separated, in the spool files. Cheaper to write than JSON on the
 * hot path (only the strings a visitor or a header can set need escaping) and readable by `cut`.
 * Versioned by the file's first line, so the format can grow. v2 (issue 15) appends the five
 * UTM values and the trigger to v1's nine fields; v3 (places) appends the region and city of
 * trusted edge headers; v4 (A/B tests) appends the test id and the variant. Files of earlier
 * versions, left by an older instance that died, are still read (their clicks lack what came later).
 */
export const SPOOL_HEADER = 'linktrail-clicks v4\n';
const SPOOL_HEADER_V3 = 'linktrail-clicks v3\n';
const SPOOL_HEADER_V2 = 'linktrail-clicks v2\n';
const SPOOL_HEADER_V1 = 'linktrail-clicks v1\n';

const SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const UNESCAPES: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', r: '\r' };

function escapeField(value: string): string {
  return SPECIAL.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : value;
}

function unescapeField(value: string): string {
  return value.includes('\\') ? value.replace(/\\(.)/g, (_, c: string) => UNESCAPES[c] ?? c) : value;
}

/** `undefined` and `null` are written as `\N`, which no escaped value can be. */
const NONE = '\\N';

const optional = (value: string | undefined): string => (value === undefined ? NONE : escapeField(value));

/** Most clicks carry no UTM value: their five fields at once. */
const NO_UTM = `${NONE}\t${NONE}\t${NONE}\t${NONE}\t${NONE}`;

function utmFields(u: Utm | undefined): string {
  return u === undefined ? NO_UTM : `${optional(u.source)}\t${optional(u.medium)}\t${optional(u.campaign)}\t${optional(u.term)}\t${optional(u.content)}`;
}

/** The spool line of a click (with its newline), in the current format (v4). */
export function spoolLine(c: RawClick): string {
  // Ids are UUIDs we made, `at` a number and the trigger a word: none needs escaping. The IP and
  // country come from the socket or a trusted header but are escaped anyway: nothing a visitor
  // sends may break a line.
  return (
    `${c.id}\t${c.workspaceId}\t${c.linkId}\t${c.partnerId ?? NONE}\t${c.at}\t${escapeField(c.ip)}\t` +
    `${optional(c.country)}\t${escapeField(c.userAgent)}\t${optional(c.referer)}\t${utmFields(c.utm)}\t${c.trigger ?? NONE}\t` +
    `${optional(c.region)}\t${optional(c.city)}\t${c.testId ?? NONE}\t${c.variant ?? NONE}\n`
  );
}

const V1_FIELDS = 9;
const V2_FIELDS = 15;
const V3_FIELDS = 17;
const V4_FIELDS = 19;
const FIELDS = { 1: V1_FIELDS, 2: V2_FIELDS, 3: V3_FIELDS, 4: V4_FIELDS } as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const read = (field: string): string | undefined => (field === NONE ? undefined : unescapeField(field));

const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content'] as const;

/** The UTM values of a v2 line's fields 9–13; undefined when all five are absent. */
function readUtm(f: string[]): Utm | undefined {
  let utm: Utm | undefined;
  for (let i = 0; i < UTM_KEYS.length; i++) {
    const value = read(f[9 + i]!);
    if (value !== undefined) (utm ??= {})[UTM_KEYS[i]!] = value;
  }
  return utm;
}

/**
 * Parses one line (without its newline) of a file of the given version (4, the current, unless
 * told); undefined for a line that is not a whole click.
 */
export function parseSpoolLine(line: string, version: 1 | 2 | 3 | 4 = 4): RawClick | undefined {
  const f = line.split('\t');
  if (f.length !== FIELDS[version]) return undefined;
  const [id, workspaceId, linkId, partnerId, at, ip, country, userAgent, referer] = f as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (!UUID.test(id) || !UUID.test(workspaceId) || !UUID.test(linkId) || (partnerId !== NONE && !UUID.test(partnerId))) return undefined;
  const ms = Number(at);
  if (!Number.isSafeInteger(ms) || ms < 0) return undefined;
  const click: RawClick = {
    id,
    workspaceId,
    linkId,
    partnerId: partnerId === NONE ? null : partnerId,
    at: ms,
    ip: unescapeField(ip),
    country: read(country),
    userAgent: unescapeField(userAgent),
    referer: read(referer),
  };
  if (version === 1) return click;
  const trigger = f[14]!;
  if (trigger !== NONE && trigger !== 'qr' && trigger !== 'via') return undefined;
  const utm = readUtm(f);
  if (utm) click.utm = utm;
  if (trigger === 'qr' || trigger === 'via') click.trigger = trigger;
  if (version === 2) return click;
  const region = read(f[15]!);
  const city = read(f[16]!);
  if (region !== undefined) click.region = region;
  if (city !== undefined) click.city = city;
  if (version === 3) return click;
  const testId = f[17]!;
  const variant = f[18]!;
  if ((testId === NONE) !== (variant === NONE)) return undefined;
  if (testId !== NONE) {
    if (!UUID.test(testId) || !/^[0-9]$/.test(variant)) return undefined;
    click.testId = testId;
    click.variant = Number(variant);
  }
  return click;
}

/**
 * The clicks of a spool file's text. A file cut short by a crash ends in a partial line
 * (no newline): it is skipped, as are lines that do not parse; `skipped` counts them.
 */
export function parseSpool(text: string): { clicks: RawClick[]; skipped: number } {
  const clicks: RawClick[] = [];
  let skipped = 0;
  const version = text.startsWith(SPOOL_HEADER)
    ? 4
    : text.startsWith(SPOOL_HEADER_V3)
      ? 3
      : text.startsWith(SPOOL_HEADER_V2)
        ? 2
        : text.startsWith(SPOOL_HEADER_V1)
          ? 1
          : undefined;
  if (version === undefined) return { clicks, skipped: text.length ? 1 : 0 };
  let from = { 1: SPOOL_HEADER_V1, 2: SPOOL_HEADER_V2, 3: SPOOL_HEADER_V3, 4: SPOOL_HEADER }[version].length;
  for (;;) {
    const end = text.indexOf('\n', from);
    if (end === -1) {
      if (from < text.length) skipped++;
      break;
    }
    const click = parseSpoolLine(text.slice(from, end), version);
    if (click) clicks.push(click);
    else skipped++;
    from = end + 1;
  }
  return { clicks, skipped };
}
