import { sql, type SQL } from 'drizzle-orm';
import { addLinkDays, addLinkRevenueDays, afterWrite, utcDay } from '../analytics/service.js';

/*
 * The pieces of a tracking or import statement that add its events `ev` (a WITH query with the
 * event columns) to the analytics module's tables, shared by store.ts (one event) and
 * store-imports.ts (a batch). `after` names the statement's earlier write: the tables are taken
 * in one order (analytics/store-rollup-writes.ts afterWrite). These write the analytics module's
 * tables in the tracking statement itself, so an event and its counts commit together.
 */

/** The rollup keys of the events `ev` (analytics_keys() of migrations 0010, 0012, 0021 and 0031), as their clicks' would be. */
export const eventKeys = (after?: string): SQL => sql`FROM ev LEFT JOIN analytics_hot_links h ON h.link_id = ev.link_id
      CROSS JOIN LATERAL analytics_keys(ev.workspace_id, ev.link_id, ev.partner_id, ev.country, ev.device, ev.browser, ev.os,
        ev.referrer, ev.referrer_url, ev.utm_source, ev.utm_medium, ev.utm_campaign, ev.utm_term, ev.utm_content, ev.trigger,
        (ev.created_at >= h.dims_from) IS TRUE, (ev.created_at >= h.urls_from) IS TRUE, ev.region, ev.city,
        (ev.created_at >= h.places_from) IS TRUE) k
      ${after ? sql`WHERE ${afterWrite(after)}` : sql``}`;

/** The events' leads and sales added to their links' UTC days (link_daily_stats, migration 0020), after the write `after`. */
export const linkDaysOfEvents = (leads: number, sales: number, after: string, slot: number): SQL =>
  addLinkDays(
    sql`SELECT workspace_id, ${utcDay(sql`created_at`)} AS day, link_id, 0 AS clicks, ${leads}::bigint AS leads, ${sales}::bigint AS sales FROM ev WHERE ${afterWrite(after)}`,
    slot,
  );

/** The sales' money (`amount`, `refunded`) added to their links' UTC days in their currencies (link_daily_revenue, migration 0020), after the write `after`. */
export const linkRevenueOfSales = (amount: SQL, refunded: SQL, after: string, slot: number): SQL =>
  addLinkRevenueDays(
    sql`SELECT workspace_id, ${utcDay(sql`created_at`)} AS day, link_id, currency, ${amount} AS amount, ${refunded} AS refunded FROM ev WHERE ${afterWrite(after)}`,
    slot,
  );
