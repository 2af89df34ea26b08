import { createHmac, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { sql, type SQL } from 'drizzle-orm';
import ipaddr from 'ipaddr.js';
import { rows, type Conn, type Database } from '../../db/connect.js';
import { FIRST_IN_WORKSPACE, FIRST_ON_LINK } from '../analytics/service.js';
import { agentFacts, type RawClick } from './record.js';

/*
 * Visitors (operations.md §14 "Funnel"): a visitor is HMAC-SHA-256 of the address and user agent
 * under the UTC day's salt (visitor_salts, migration 0021), truncated to 64 bits. The click
 * writer works it out, where the country lookup happens: the address is in the raw click anyway
 * and the redirect pays nothing. A batch claims its visitors' first clicks of the day in
 * visitor_days (insert … ON CONFLICT DO NOTHING, in the batch's transaction); a click that won
 * a claim carries visitor_flags (1: first in its workspace that day, 2: first on its link, 4:
 * first on its partner's links), and its rollup rows count it in `visitors` (bits 1 and 2). Bots
 * are stored but never counted, as for clicks. Bit 4 is what a partner's click rewards count
 * (operations.md §18 "Click rewards"): exactly one click per visitor, partner and UTC day, across
 * the partner's links, whichever instance or batch wrote them.
 */

const DAY_MS = 86_400_000;

/** Bit of clicks.visitor_flags: the click is its visitor's first of the UTC day on links recorded for its partner (click rewards count these). */
export const FIRST_FOR_PARTNER = 4;

/** The UTC date (YYYY-MM-DD) of a timestamp in ms. */
export const utcDay = (ms: number): string => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);

/**
 * The salts of the days a process writes clicks for, read once per day from visitor_salts (the
 * first instance to need a day's salt inserts it; the others read that one).
 */
export class VisitorSalts {
  private readonly known = new Map<string, Buffer>();
  /**
   * Claims in batches this process wrote (won or lost): the visitor is in visitor_days for that
   * day, so a later click of theirs is no first and its claim need not be sent again (most
   * clicks of a returning visitor cost no visitor_days row then). Bounded; forgetting only costs
   * a claim sent again.
   */
  private readonly claimed = new Set<string>();

  isClaimed(key: string): boolean {
    return this.claimed.has(key);
  }

  /** Called once a batch's transaction committed. */
  remember(claims: readonly VisitorClaim[]): void {
    if (this.claimed.size + claims.length > 200_000) this.claimed.clear();
    for (const c of claims) this.claimed.add(claimKey(c.s, c.d, c.h));
  }

  constructor(private readonly conn: Conn) {}

  async of(day: string): Promise<Buffer> {
    const held = this.known.get(day);
    if (held) return held;
    const [row] = await rows<{ salt: string }>(
      this.conn,
      sql`WITH ins AS (INSERT INTO visitor_salts (day, salt) VALUES (${day}::date, decode(${randomBytes(32).toString('hex')}, 'hex'))
            ON CONFLICT (day) DO NOTHING RETURNING salt)
          SELECT encode(salt, 'hex') AS salt FROM ins UNION ALL SELECT encode(salt, 'hex') FROM visitor_salts WHERE day = ${day}::date LIMIT 1`,
    );
    const salt = Buffer.from(row!.salt, 'hex');
    // A process writes today's clicks (and, around midnight or from a spool, yesterday's).
    if (this.known.size >= 4) this.known.clear();
    this.known.set(day, salt);
    return salt;
  }
}

const byDatabase = new WeakMap<Database, VisitorSalts>();

/** The salts of a database, one holder per database in a process. */
export function saltsOf(database: Database): VisitorSalts {
  let salts = byDatabase.get(database);
  if (!salts) byDatabase.set(database, (salts = new VisitorSalts(database.db)));
  return salts;
}

/** The 64-bit visitor hash, as the signed bigint PostgreSQL keeps. */
export function visitorHash(salt: Buffer, ip: string, userAgent: string): string {
  return createHmac('sha256', salt).update(ip).update('\n').update(userAgent).digest().readBigInt64BE(0).toString();
}

/** The /24 of an IPv4 address (also IPv4-mapped IPv6) or the /48 of an IPv6 one, as text. */
export function networkOf(ip: string): string {
  if (isIP(ip) === 0) throw new RangeError('networkKey: not an IP address');
  const parsed = ipaddr.process(ip);
  if (parsed.kind() === 'ipv4') return `${(parsed as ipaddr.IPv4).octets.slice(0, 3).join('.')}.0/24`;
  return `${(parsed as ipaddr.IPv6).parts
    .slice(0, 3)
    .map((p) => p.toString(16))
    .join(':')}::/48`;
}

/**
 * The 64-bit hash of the address's network (its /24 or /48) under the day's salt, as the signed
 * bigint PostgreSQL keeps; '0' for a value that is no address (nothing to group by). The text
 * hashed is `net\n<prefix>`, never a visitor hash's input (an address, a newline, an agent).
 */
export function networkHash(salt: Buffer, ip: string): string {
  if (isIP(ip) === 0) return '0';
  return createHmac('sha256', salt).update('net\n').update(networkOf(ip)).digest().readBigInt64BE(0).toString();
}

const claimKey = (scope: string, day: string, hash: string) => `${scope}|${day}|${hash}`;

/** One claim of a click: its visitor in a scope (the workspace, the link or the partner) on a day; `f` the visitor_flags bit it gives. */
export interface VisitorClaim {
  id: string;
  w: string;
  d: string;
  s: string;
  h: string;
  f: number;
}

/**
 * What the fraud rules keep of a partner's human click for 24 hours (click_visitors, migration
 * 0041): click id, workspace, time (ISO), visitor hash, network hash.
 */
export interface ClickVisitor {
  c: string;
  w: string;
  t: string;
  v: string;
  n: string;
}

/**
 * The claims of a batch: for each visitor, scope and day, the batch's earliest human click.
 * Whether a claim is won (the visitor's first that day there) is for visitor_days to tell. Each
 * human click recorded for a partner is also added to `visits` (its visitor and network hashes).
 */
export async function visitorClaims(clicks: readonly RawClick[], salts: VisitorSalts, visits?: ClickVisitor[]): Promise<VisitorClaim[]> {
  // Per day, address and agent (nested maps: no key string built per click, this runs for every
  // click in the process that answers redirects): the visitor's hash and earliest claim per scope.
  const byDay = new Map<string, Map<string, Map<string, Visitor>>>();
  const found: Visitor[] = [];
  let lastAt = Number.NaN;
  let d = '';
  for (const c of clicks) {
    if (agentFacts(c.userAgent).bot) continue;
    if (c.at !== lastAt) d = utcDay((lastAt = c.at));
    let byIp = byDay.get(d);
    if (!byIp) byDay.set(d, (byIp = new Map()));
    let byAgent = byIp.get(c.ip);
    if (!byAgent) byIp.set(c.ip, (byAgent = new Map()));
    let v = byAgent.get(c.userAgent);
    if (!v) {
      v = { d, h: visitorHash(await salts.of(d), c.ip, c.userAgent), first: new Map() };
      byAgent.set(c.userAgent, v);
      found.push(v);
    }
    claimFirst(v, c.workspaceId, FIRST_IN_WORKSPACE, c, salts);
    claimFirst(v, c.linkId, FIRST_ON_LINK, c, salts);
    // The partner the click recorded (a partner's id is never a link's or a workspace's).
    if (c.partnerId) {
      claimFirst(v, c.partnerId, FIRST_FOR_PARTNER, c, salts);
      if (visits) {
        v.n ??= networkHash(await salts.of(d), c.ip);
        visits.push({ c: c.id, w: c.workspaceId, t: new Date(c.at).toISOString(), v: v.h, n: v.n });
      }
    }
  }
  return found.flatMap((v) => [...v.first.values()].flatMap((f) => (f ? [f.claim] : [])));
}

interface Visitor {
  d: string;
  h: string;
  /** The network hash, worked out for the visitor's first click on a partner's link. */
  n?: string;
  /** By scope: the batch's earliest click of this visitor there (null: claimed by an earlier batch). */
  first: Map<string, { claim: VisitorClaim; at: number } | null>;
}

function claimFirst(v: Visitor, scope: string, flag: number, c: RawClick, salts: VisitorSalts): void {
  const held = v.first.get(scope);
  if (held === null) return;
  if (held === undefined && salts.isClaimed(claimKey(scope, v.d, v.h))) {
    v.first.set(scope, null);
    return;
  }
  if (!held || c.at < held.at) v.first.set(scope, { claim: { id: c.id, w: c.workspaceId, d: v.d, s: scope, h: v.h, f: flag }, at: c.at });
}

/**
 * CTEs `vd` (the claims won, inserted into visitor_days in key order so that writers never
 * deadlock) and `vf` (id, flags: the visitor_flags of each click that won a claim).
 */
export function claimCtes(claims: readonly VisitorClaim[]): SQL {
  return sql`cand AS (
      SELECT x.id, x.w, x.d, x.s, x.h, x.f FROM jsonb_to_recordset(${JSON.stringify(claims)}::jsonb) AS x(id uuid, w uuid, d date, s uuid, h bigint, f smallint)),
    vd AS (
      INSERT INTO visitor_days (workspace_id, day, scope_id, hash) SELECT w, d, s, h FROM cand ORDER BY 1, 2, 3, 4
      ON CONFLICT DO NOTHING RETURNING workspace_id, day, scope_id, hash),
    vf AS (
      SELECT c.id, sum(c.f)::smallint AS flags
      FROM cand c JOIN vd ON vd.workspace_id = c.w AND vd.day = c.d AND vd.scope_id = c.s AND vd.hash = c.h GROUP BY c.id)`;
}

/** The claims as a statement of their own (before a COPY): the flags of the clicks that won. */
export function claimStatement(claims: readonly VisitorClaim[]): SQL {
  return sql`WITH ${claimCtes(claims)} SELECT id::text AS id, flags FROM vf`;
}

/**
 * CTE `cvis`: the batch's click_visitors rows, in click-id order; a click already there (a
 * retried batch) keeps its row. Written in the batch's statement after its clicks: no statement
 * of its own.
 */
export function clickVisitorsCte(visits: readonly ClickVisitor[]): SQL {
  return sql`cvis AS (
      INSERT INTO click_visitors (click_id, workspace_id, created_at, visitor, network)
      SELECT x.c, x.w, x.t, x.v, x.n FROM jsonb_to_recordset(${JSON.stringify(visits)}::jsonb) AS x(c uuid, w uuid, t timestamptz, v bigint, n bigint)
      ORDER BY 1 ON CONFLICT (click_id) DO NOTHING)`;
}

/** A click's visitor as the fraud rules read it, while its click_visitors row is kept (24 hours). */
export interface ClickVisitorFacts {
  /** The click's visitor hash (signed 64-bit, as text) and its UTC day. */
  visitor: string;
  day: string;
  /**
   * Leads of the workspace created since an hour before `at` (this one included when stored
   * already; `at` is a JavaScript time, in ms, while leads keep µs: no upper bound) whose click
   * shares its visitor or network, counted up to the limit asked for.
   */
  leadsInHour: number;
}

/**
 * The facts of `clickId` (no row: not a partner's human click of the last 24 hours), as a query
 * (columns visitor, day, "leadsInHour") of another module's statement (the commission a
 * conversion earns reads it with the rest in one round trip): its row by primary key, the
 * workspace's clicks of the same visitor or network through click_visitors_visitor_idx and
 * _network_idx, and those clicks' leads of the hour through lead_events_click_idx, a probe per
 * click (conversions' table, read as the click writer writes the analytics module's). The leads
 * are matched by click id alone, which is the workspace's: a condition on their workspace would
 * let the planner walk lead_events_analytics_idx, the workspace's whole hour. `when`, an SQL
 * condition, spares its reads when false.
 */
export function clickVisitorFactsSql(workspaceId: string, clickId: string, at: string | SQL, countUpTo: number, when: SQL = sql`true`): SQL {
  const since = typeof at === 'string' ? sql`${at}::timestamptz` : at;
  // Written into the text, not a parameter: a generic plan guesses a parameter's LIMIT (a tenth of
  // the rows), costs itself above the custom plans, and the statement is then planned again at every
  // call (a tracked sale: 5.8 ms of planning each, BENCHMARKS.md).
  const limit = sql.raw(String(Math.trunc(countUpTo)));
  return sql`WITH me AS (SELECT visitor, network, created_at FROM click_visitors WHERE click_id = ${clickId}::uuid AND workspace_id = ${workspaceId}::uuid AND (${when})),
          near AS (
            SELECT v.click_id FROM click_visitors v JOIN me ON v.visitor = me.visitor WHERE v.workspace_id = ${workspaceId}::uuid
            UNION
            SELECT v.click_id FROM click_visitors v JOIN me ON v.network = me.network WHERE v.workspace_id = ${workspaceId}::uuid AND me.network <> 0)
        SELECT me.visitor::text AS visitor, to_char(me.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
          -- Counted up to countUpTo only: a burst under way (thousands of leads an hour from one
          -- network) costs each of its leads the same few rows, not all of the hour's. The LIMIT
          -- inside keeps each click's count a probe of lead_events_click_idx: without it the
          -- planner may join near to a scan of all of lead_events, and a LIMIT met late (the
          -- visitor's leads are the newest rows) read most of the table (measured: the cost of a
          -- partner's lead grew with the table in the conversions-partner bench).
          (SELECT count(*)::int FROM (SELECT 1 FROM near CROSS JOIN LATERAL (SELECT 1 FROM lead_events l
            WHERE l.click_id = near.click_id AND l.created_at > ${since} - interval '1 hour' LIMIT ${limit}) l LIMIT ${limit}) x) AS "leadsInHour"
        FROM me`;
}

/** Today's (UTC, by `now`) visitor hash of an address and agent, as a click of theirs would have it now. */
export async function visitorHashOn(conn: Conn, now: Date, ip: string, userAgent: string): Promise<{ day: string; hash: string }> {
  const day = utcDay(now.getTime());
  // One read (or the day's first insert) per call: a sign-in is rare, and `conn` may be a transaction's.
  const salt = await new VisitorSalts(conn).of(day);
  return { day, hash: visitorHash(salt, ip, userAgent) };
}

/**
 * Deletes the click_visitors rows older than 24 hours (by the database's clock): the fraud rules
 * judge a lead by its click's visitor and network only while the click is that recent.
 */
export async function forgetClickVisitors(conn: Conn): Promise<number> {
  const [gone] = await rows<{ n: number }>(
    conn,
    sql`WITH d AS (DELETE FROM click_visitors WHERE created_at < now() - interval '24 hours' RETURNING 1) SELECT count(*)::int AS n FROM d`,
  );
  return gone?.n ?? 0;
}

/**
 * Deletes the salts and visitor_days of the days before the database's UTC day: their hashes can
 * no longer be tied to anyone. (By the database's clock: an instance whose clock runs ahead would
 * delete today's salt, and the day's visitors would be counted again under a new one.)
 */
export async function forgetPastVisitors(conn: Conn): Promise<{ salts: number; visitorDays: number }> {
  const today = sql`(now() AT TIME ZONE 'UTC')::date`;
  const [gone] = await rows<{ salts: number; visitorDays: number }>(
    conn,
    sql`WITH s AS (DELETE FROM visitor_salts WHERE day < ${today} RETURNING 1),
             v AS (DELETE FROM visitor_days WHERE day < ${today} RETURNING 1)
        SELECT (SELECT count(*) FROM s)::int AS salts, (SELECT count(*) FROM v)::int AS "visitorDays"`,
  );
  return gone ?? { salts: 0, visitorDays: 0 };
}
