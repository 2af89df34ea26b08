import { sql, type SQL } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';
import type { Static } from '@sinclair/typebox';
import type { DimensionFilter } from './dimensions.js';
import type { ClickRecord as ClickSchema } from './schemas.js';
import { rawFilter } from './store-filters.js';

/** Which clicks a read of GET /api/analytics covers (the clicks table is written by the redirect). */
export interface ClickFilter {
  workspaceId: string;
  /** One click (and, when grouping, the events attributed to it). */
  clickId?: string;
  linkId?: string;
  partnerId?: string;
  /** Breakdown values the clicks must have. */
  filters?: DimensionFilter[];
  start?: Date;
  end?: Date;
  /** The end bound is excluded (a date-only endDate: before the next day starts). */
  endExclusive?: boolean;
}

export interface Page {
  take: number;
  skip: number;
  sort: 'asc' | 'desc';
}

const UTM_TRIGGER =
  'c.utm_source AS "utmSource", c.utm_medium AS "utmMedium", c.utm_campaign AS "utmCampaign", c.utm_term AS "utmTerm", c.utm_content AS "utmContent", c.trigger';

/** A stored click as the API lists it (schemas.ts `Click`): the clicks table's row without the workspace and bot flag. */
export type ClickRecord = Static<typeof ClickSchema>;

/** Human clicks only: bot clicks are kept but never counted. */
function clickWhere(f: ClickFilter, alias: string): SQL {
  const a = sql.raw(alias);
  const parts = [sql`${a}.workspace_id = ${f.workspaceId}`, sql`NOT ${a}.bot`];
  if (f.clickId) parts.push(sql`${a}.id = ${f.clickId}::uuid`);
  if (f.linkId) parts.push(sql`${a}.link_id = ${f.linkId}::uuid`);
  if (f.partnerId) parts.push(sql`${a}.partner_id = ${f.partnerId}::uuid`);
  for (const d of f.filters ?? []) parts.push(rawFilter(d, alias, f.workspaceId));
  if (f.start) parts.push(sql`${a}.created_at >= ${f.start.toISOString()}::timestamptz`);
  if (f.end) parts.push(endBound(a, f));
  return sql.join(parts, sql` AND `);
}

function endBound(a: SQL, f: ClickFilter): SQL {
  return f.endExclusive ? sql`${a}.created_at < ${f.end!.toISOString()}::timestamptz` : sql`${a}.created_at <= ${f.end!.toISOString()}::timestamptz`;
}

export function listClicks(conn: Conn, f: ClickFilter, p: Page): Promise<ClickRecord[]> {
  const dir = sql.raw(p.sort === 'asc' ? 'ASC' : 'DESC');
  return rows<ClickRecord>(
    conn,
    sql`SELECT c.id, c.link_id AS "linkId", c.partner_id AS "partnerId", ${sql.raw(isoTimestamp('c.created_at'))} AS "createdAt",
          c.country, c.device, c.browser, c.os, c.referrer, c.referrer_url AS "referrerUrl", ${sql.raw(UTM_TRIGGER)}, ${sql.raw(UTM_TRIGGER)}
        FROM clicks c WHERE ${clickWhere(f, 'c')}
        ORDER BY c.created_at ${dir}, c.seq ${dir} LIMIT ${p.take} OFFSET ${p.skip}`,
  );
}

/** Where a keyset page of clicks starts: after this (created_at, seq), in the page's order. */
export interface ClickCursor {
  /** created_at as the database wrote it as text (exact to the microsecond, with its offset). */
  at: string;
  seq: number;
}

/**
 * A page of clicks after a cursor (keyset, not OFFSET: each page walks the index from where
 * the last one stopped), in the order of listClicks, with the cursor of its last row. The
 * first page may still skip rows (a CSV export's `skip`).
 */
export async function clickPage(
  conn: Conn,
  f: ClickFilter,
  sort: 'asc' | 'desc',
  after: ClickCursor | undefined,
  limit: number,
  skip = 0,
): Promise<{ records: ClickRecord[]; next?: ClickCursor }> {
  const dir = sql.raw(sort === 'asc' ? 'ASC' : 'DESC');
  const from = after ? sql` AND (c.created_at, c.seq) ${sql.raw(sort === 'asc' ? '>' : '<')} (${after.at}::timestamptz, ${after.seq}::bigint)` : sql``;
  const found = await rows<ClickRecord & { cursorAt: string; seq: string | number }>(
    conn,
    sql`SELECT c.id, c.link_id AS "linkId", c.partner_id AS "partnerId", ${sql.raw(isoTimestamp('c.created_at'))} AS "createdAt",
          c.country, c.device, c.browser, c.os, c.referrer, c.referrer_url AS "referrerUrl", ${sql.raw(UTM_TRIGGER)}, ${sql.raw(UTM_TRIGGER)},
          c.created_at::text AS "cursorAt", c.seq
        FROM clicks c WHERE ${clickWhere(f, 'c')}${from}
        ORDER BY c.created_at ${dir}, c.seq ${dir} LIMIT ${limit} OFFSET ${skip}`,
  );
  const last = found.at(-1);
  const records = found.map(({ cursorAt: _a, seq: _s, ...r }) => r);
  return { records, next: last && { at: last.cursorAt, seq: Number(last.seq) } };
}
