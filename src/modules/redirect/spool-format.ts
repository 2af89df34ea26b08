import type { RawClick } from './click-record.js';

/**
 * One raw click per line, tab-separated, in the spool files. Cheaper to write than JSON on the
 * hot path (only the two header-borne strings can need escaping) and readable by `cut`.
 * Versioned by the file's first line, so the format can grow (issue 15 adds UTM values).
 */
export const SPOOL_HEADER = 'linktrail-clicks v1\n';

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

/** The spool line of a click (with its newline). */
export function spoolLine(c: RawClick): string {
  // Ids are UUIDs we made and `at` a number: none needs escaping. The IP and country come from
  // the socket or a trusted header but are escaped anyway: nothing a visitor sends may break a line.
  return (
    `${c.id}\t${c.workspaceId}\t${c.linkId}\t${c.partnerId ?? NONE}\t${c.at}\t${escapeField(c.ip)}\t` +
    `${c.country === undefined ? NONE : escapeField(c.country)}\t${escapeField(c.userAgent)}\t${c.referer === undefined ? NONE : escapeField(c.referer)}\n`
  );
}

const FIELDS = 9;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Parses one line (without its newline); undefined for a line that is not a whole click. */
export function parseSpoolLine(line: string): RawClick | undefined {
  const f = line.split('\t');
  if (f.length !== FIELDS) return undefined;
  const [id, workspaceId, linkId, partnerId, at, ip, country, userAgent, referer] = f as [string, string, string, string, string, string, string, string, string];
  if (!UUID.test(id) || !UUID.test(workspaceId) || !UUID.test(linkId) || (partnerId !== NONE && !UUID.test(partnerId))) return undefined;
  const ms = Number(at);
  if (!Number.isSafeInteger(ms) || ms < 0) return undefined;
  return {
    id,
    workspaceId,
    linkId,
    partnerId: partnerId === NONE ? null : partnerId,
    at: ms,
    ip: unescapeField(ip),
    country: country === NONE ? undefined : unescapeField(country),
    userAgent: unescapeField(userAgent),
    referer: referer === NONE ? undefined : unescapeField(referer),
  };
}

/**
 * The clicks of a spool file's text. A file cut short by a crash ends in a partial line
 * (no newline): it is skipped, as are lines that do not parse; `skipped` counts them.
 */
export function parseSpool(text: string): { clicks: RawClick[]; skipped: number } {
  const clicks: RawClick[] = [];
  let skipped = 0;
  if (!text.startsWith(SPOOL_HEADER)) return { clicks, skipped: text.length ? 1 : 0 };
  let from = SPOOL_HEADER.length;
  for (;;) {
    const end = text.indexOf('\n', from);
    if (end === -1) {
      if (from < text.length) skipped++;
      break;
    }
    const click = parseSpoolLine(text.slice(from, end));
    if (click) clicks.push(click);
    else skipped++;
    from = end + 1;
  }
  return { clicks, skipped };
}
