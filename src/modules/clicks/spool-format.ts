import { LineBytes } from './line-bytes.js';
import type { RawClick, Utm } from './record.js';

/**
 * The spool files' format: one raw click per line, tab-separated. Cheaper to write than JSON on
 * the hot path (only the strings a visitor or a header can set need escaping) and readable by
 * `cut`. Versioned by the file's first line, so the format can grow. v2 (issue 15) appends the
 * five UTM values and the trigger to v1's nine fields; v3 (places) appends the region and city of
 * trusted edge headers; v4 (A/B tests) appends the test id and the variant. v5 (issue 48) writes
 * a click's link (workspace, link and partner ids) and its User-Agent once per file, on a line of
 * their own, and refers to them by number: the bytes written before each answer are what the
 * spool costs, and these repeat across a file's clicks. Files of earlier versions, left by an
 * older instance that died, are still read (their clicks lack what came later).
 */
export const SPOOL_HEADER = 'linktrail-clicks v5\n';
const SPOOL_HEADER_V4 = 'linktrail-clicks v4\n';
const SPOOL_HEADER_V3 = 'linktrail-clicks v3\n';
const SPOOL_HEADER_V2 = 'linktrail-clicks v2\n';
const SPOOL_HEADER_V1 = 'linktrail-clicks v1\n';

const UNESCAPES: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', r: '\r' };

function unescapeField(value: string): string {
  return value.includes('\\') ? value.replace(/\\(.)/g, (_, c: string) => UNESCAPES[c] ?? c) : value;
}

/** `undefined` and `null` are written as `\N`, which no escaped value can be. */
const NONE = '\\N';

const TAB = 0x09;
const NEWLINE = 0x0a;

/** A definition line starts with this (a click line starts with its id, a uuid). */
const LINK_LINE = '=L\t';
const AGENT_LINE = '=A\t';
/**
 * How many links and agents a file's encoder remembers. Past it, numbering starts again from 0:
 * a definition replaces the earlier one of its number, for the lines after it.
 */
const REMEMBERED = 4096;

interface LinkEntry {
  n: number;
  workspaceId: string;
  partnerId: string | null;
}

/**
 * Writes the lines of one spool file (v5), after its header: each click's line, preceded by the
 * definitions of its link and agent the first time the file needs them. One per file: a new
 * file starts with no definitions. The lines go into bytes (line-bytes.ts), taken once a turn.
 */
export class SpoolEncoder {
  private readonly links = new Map<string, LinkEntry>();
  private readonly agents = new Map<string, number>();
  private readonly out = new LineBytes();

  /** Adds a click's lines (each with its newline): the definitions it needs, then its own. */
  add(c: RawClick): void {
    const o = this.out;
    let link = this.links.get(c.linkId);
    // A link's partner can change while it is remembered: defined again, under its number.
    if (link === undefined || link.partnerId !== c.partnerId || link.workspaceId !== c.workspaceId) {
      if (link === undefined) {
        if (this.links.size >= REMEMBERED) this.links.clear();
        link = { n: this.links.size, workspaceId: c.workspaceId, partnerId: c.partnerId };
        this.links.set(c.linkId, link);
      } else {
        link.workspaceId = c.workspaceId;
        link.partnerId = c.partnerId;
      }
      o.plain(LINK_LINE);
      o.number(link.n);
      o.byte(TAB);
      o.plain(c.workspaceId);
      o.byte(TAB);
      o.plain(c.linkId);
      o.byte(TAB);
      o.plain(c.partnerId ?? NONE);
      o.byte(NEWLINE);
    }
    let agent = this.agents.get(c.userAgent);
    if (agent === undefined) {
      if (this.agents.size >= REMEMBERED) this.agents.clear();
      agent = this.agents.size;
      this.agents.set(c.userAgent, agent);
      o.plain(AGENT_LINE);
      o.number(agent);
      o.byte(TAB);
      o.text(c.userAgent);
      o.byte(NEWLINE);
    }
    // Ids are UUIDs we made, `at` a number and the trigger a word: none needs escaping. The IP and
    // country come from the socket or a trusted header but are escaped anyway: nothing a visitor
    // sends may break a line.
    o.plain(c.id);
    o.byte(TAB);
    o.number(link.n);
    o.byte(TAB);
    o.number(c.at);
    o.byte(TAB);
    o.text(c.ip);
    o.byte(TAB);
    optional(o, c.country);
    o.byte(TAB);
    o.number(agent);
    o.byte(TAB);
    optional(o, c.referer);
    o.byte(TAB);
    utmFields(o, c.utm);
    o.byte(TAB);
    o.plain(c.trigger ?? NONE);
    o.byte(TAB);
    optional(o, c.region);
    o.byte(TAB);
    optional(o, c.city);
    o.byte(TAB);
    o.plain(c.testId ?? NONE);
    o.byte(TAB);
    if (c.variant === undefined) o.plain(NONE);
    else o.number(c.variant);
    o.byte(NEWLINE);
  }

  /** The bytes of the clicks added since the last take: valid until the next add. */
  take(): Buffer {
    return this.out.take();
  }

  /** A click's lines as text (tests, tools). */
  lines(c: RawClick): string {
    this.add(c);
    return this.take().toString('utf8');
  }
}

/** A field that may be absent (NONE). */
function optional(o: LineBytes, value: string | undefined): void {
  if (value === undefined) o.plain(NONE);
  else o.text(value);
}

/** Most clicks carry no UTM value: their five fields at once. */
const NO_UTM = `${NONE}\t${NONE}\t${NONE}\t${NONE}\t${NONE}`;

function utmFields(o: LineBytes, u: Utm | undefined): void {
  if (u === undefined) return o.plain(NO_UTM);
  optional(o, u.source);
  o.byte(TAB);
  optional(o, u.medium);
  o.byte(TAB);
  optional(o, u.campaign);
  o.byte(TAB);
  optional(o, u.term);
  o.byte(TAB);
  optional(o, u.content);
}

/** A whole spool file (v5) of these clicks: what a spool writes, in one piece (tests, tools). */
export function spoolFile(clicks: readonly RawClick[]): string {
  const encoder = new SpoolEncoder();
  for (const c of clicks) encoder.add(c);
  return SPOOL_HEADER + encoder.take().toString('utf8');
}

const V1_FIELDS = 9;
const V2_FIELDS = 15;
const V3_FIELDS = 17;
const V4_FIELDS = 19;
const V5_FIELDS = 17;
const FIELDS = { 1: V1_FIELDS, 2: V2_FIELDS, 3: V3_FIELDS, 4: V4_FIELDS } as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NUMBER = /^\d{1,5}$/;

const read = (field: string): string | undefined => (field === NONE ? undefined : unescapeField(field));

const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content'] as const;

/** The UTM values of the five fields from `at`; undefined when all five are absent. */
function readUtm(f: string[], at: number): Utm | undefined {
  let utm: Utm | undefined;
  for (let i = 0; i < UTM_KEYS.length; i++) {
    const value = read(f[at + i]!);
    if (value !== undefined) (utm ??= {})[UTM_KEYS[i]!] = value;
  }
  return utm;
}

/** A click's time as written, or undefined. */
function readAt(field: string): number | undefined {
  const ms = Number(field);
  return Number.isSafeInteger(ms) && ms >= 0 ? ms : undefined;
}

/**
 * Adds what v2 and later versions write after the referrer (UTM values, trigger, then region and
 * city from v3, test and variant from v4), from field `at` of `f`; false when they do not parse.
 */
function readLater(click: RawClick, f: string[], at: number, version: 2 | 3 | 4 | 5): boolean {
  const trigger = f[at + 5]!;
  if (trigger !== NONE && trigger !== 'qr' && trigger !== 'via') return false;
  const utm = readUtm(f, at);
  if (utm) click.utm = utm;
  if (trigger === 'qr' || trigger === 'via') click.trigger = trigger;
  if (version === 2) return true;
  const region = read(f[at + 6]!);
  const city = read(f[at + 7]!);
  if (region !== undefined) click.region = region;
  if (city !== undefined) click.city = city;
  if (version === 3) return true;
  const testId = f[at + 8]!;
  const variant = f[at + 9]!;
  if ((testId === NONE) !== (variant === NONE)) return false;
  if (testId !== NONE) {
    if (!UUID.test(testId) || !/^[0-9]$/.test(variant)) return false;
    click.testId = testId;
    click.variant = Number(variant);
  }
  return true;
}

/**
 * Parses one line (without its newline) of a file of version 1–4 (4 unless told), whose lines
 * carry each click whole; undefined for a line that is not a whole click.
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
  const ms = readAt(at);
  if (ms === undefined) return undefined;
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
  return readLater(click, f, 9, version) ? click : undefined;
}

interface LinkDefinition {
  workspaceId: string;
  linkId: string;
  partnerId: string | null;
}

/** The definitions a v5 file has made so far, by number. */
interface Definitions {
  links: Map<number, LinkDefinition>;
  agents: Map<number, string>;
}

/** Reads a v5 definition line into `d`; false when it is not one. */
function define(line: string, d: Definitions): boolean {
  const f = line.split('\t');
  if (line.startsWith(LINK_LINE)) {
    const [, n, workspaceId, linkId, partnerId] = f;
    if (f.length !== 5 || !NUMBER.test(n!) || !UUID.test(workspaceId!) || !UUID.test(linkId!) || (partnerId !== NONE && !UUID.test(partnerId!))) return false;
    d.links.set(Number(n), { workspaceId: workspaceId!, linkId: linkId!, partnerId: partnerId === NONE ? null : partnerId! });
    return true;
  }
  if (f.length !== 3 || !NUMBER.test(f[1]!)) return false;
  d.agents.set(Number(f[1]), unescapeField(f[2]!));
  return true;
}

/** A v5 click line, its link and agent taken from `d`; undefined when it is not a whole click or refers to no definition. */
function parseV5Click(line: string, d: Definitions): RawClick | undefined {
  const f = line.split('\t');
  if (f.length !== V5_FIELDS) return undefined;
  const [id, linkRef, at, ip, country, agentRef, referer] = f as [string, string, string, string, string, string, string];
  const link = NUMBER.test(linkRef) ? d.links.get(Number(linkRef)) : undefined;
  const userAgent = NUMBER.test(agentRef) ? d.agents.get(Number(agentRef)) : undefined;
  const ms = readAt(at);
  if (!UUID.test(id) || link === undefined || userAgent === undefined || ms === undefined) return undefined;
  const click: RawClick = {
    id,
    workspaceId: link.workspaceId,
    linkId: link.linkId,
    partnerId: link.partnerId,
    at: ms,
    ip: unescapeField(ip),
    country: read(country),
    userAgent,
    referer: read(referer),
  };
  return readLater(click, f, 7, 5) ? click : undefined;
}

const HEADERS = [
  [SPOOL_HEADER, 5],
  [SPOOL_HEADER_V4, 4],
  [SPOOL_HEADER_V3, 3],
  [SPOOL_HEADER_V2, 2],
  [SPOOL_HEADER_V1, 1],
] as const;

/**
 * The clicks of a spool file's text. A file cut short by a crash ends in a partial line
 * (no newline): it is skipped, as are lines that do not parse; `skipped` counts them.
 */
export function parseSpool(text: string): { clicks: RawClick[]; skipped: number } {
  const clicks: RawClick[] = [];
  let skipped = 0;
  const found = HEADERS.find(([header]) => text.startsWith(header));
  if (found === undefined) return { clicks, skipped: text.length ? 1 : 0 };
  const [header, version] = found;
  const d: Definitions = { links: new Map(), agents: new Map() };
  let from = header.length;
  for (;;) {
    const end = text.indexOf('\n', from);
    if (end === -1) {
      if (from < text.length) skipped++;
      break;
    }
    const line = text.slice(from, end);
    from = end + 1;
    if (version === 5 && (line.startsWith(LINK_LINE) || line.startsWith(AGENT_LINE))) {
      if (!define(line, d)) skipped++;
      continue;
    }
    const click = version === 5 ? parseV5Click(line, d) : parseSpoolLine(line, version);
    if (click) clicks.push(click);
    else skipped++;
  }
  return { clicks, skipped };
}
