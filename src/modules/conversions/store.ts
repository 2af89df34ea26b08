import { randomInt } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { inList, preparedRows, rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';
import { ROLLUP_SLOTS } from '../analytics/service.js';
import type { CustomerRow } from '../customers/service.js';
import { eventKeys, linkDaysOfEvents, linkRevenueOfSales } from './event-rollups.js';

export interface ClickRef {
  linkId: string;
  createdAt: string;
}

/** The workspace's click with this id; another workspace's click is not found, like an unknown one. */
export async function findClick(conn: Conn, workspaceId: string, clickId: string): Promise<ClickRef | undefined> {
  const [row] = await rows<ClickRef>(
    conn,
    sql`SELECT link_id AS "linkId", ${sql.raw(isoTimestamp('created_at'))} AS "createdAt" FROM clicks WHERE id = ${clickId}::uuid AND workspace_id = ${workspaceId}::uuid LIMIT 1`,
  );
  return row;
}

/** Whether the workspace has an active customer with this external id. */
export async function customerExists(conn: Conn, workspaceId: string, externalId: string): Promise<boolean> {
  const [row] = await rows<{ found: boolean }>(
    conn,
    sql`SELECT EXISTS (SELECT 1 FROM customers WHERE workspace_id = ${workspaceId}::uuid AND external_id = ${externalId} AND deleted_at IS NULL) AS found`,
  );
  return row!.found;
}

/** Where a lead or sale was reported from: the API, a browser with the publishable key, a Stripe payment, an import. */
export type EventSource = 'server' | 'client' | 'stripe' | 'import';

export interface LeadRef {
  id: string;
  clickId: string;
  linkId: string;
}

/**
 * The most recent lead of the active customer with this external id (optionally of one event
 * name); customers joined in the same statement. A lead a browser reported never counts: anyone
 * can post one, so it never decides where a later sale goes.
 */
export async function latestLead(conn: Conn, workspaceId: string, customerExternalId: string, eventName?: string): Promise<LeadRef | undefined> {
  const byName = eventName === undefined ? sql`` : sql` AND l.event_name = ${eventName}`;
  const [row] = await rows<LeadRef>(
    conn,
    sql`SELECT l.id, l.click_id AS "clickId", l.link_id AS "linkId"
        FROM customers c JOIN lead_events l ON l.customer_id = c.id
        WHERE c.workspace_id = ${workspaceId} AND c.external_id = ${customerExternalId} AND c.deleted_at IS NULL AND l.source <> 'client'${byName}
        ORDER BY l.seq DESC LIMIT 1`,
  );
  return row;
}

export interface CustomerInput {
  externalId: string;
  name: string;
  /** undefined keeps the stored value; null clears it. */
  email?: string | null;
  avatar?: string | null;
}

/**
 * Upserts the active customer (the partial unique index is the conflict target), but only
 * when the event's source is known (a `src` row): an unknown click writes nothing.
 *
 * `customers` is the customers module's table, written here and not through its service: the
 * upsert is part of the one statement that records the event (one round trip per tracked event,
 * and the customer and its event are written together or not at all).
 */
function upsertCustomerSql(workspaceId: string, customerId: string, c: CustomerInput, keepExisting = false, winFor?: string) {
  // A browser's event never changes a customer that exists (the no-op update still returns it).
  const update = keepExisting
    ? sql`name = c.name`
    : sql`
        name = EXCLUDED.name,
        email = ${c.email === undefined ? sql`c.email` : sql`EXCLUDED.email`},
        avatar = ${c.avatar === undefined ? sql`c.avatar` : sql`EXCLUDED.avatar`},
        updated_at = now()`;
  // `winFor`: the partner who wins the customer when they have none (a lead's planned commission).
  const [winColumn, winValue, winUpdate] = winFor
    ? [sql`, partner_id`, sql`, ${winFor}::uuid`, sql`, partner_id = COALESCE(c.partner_id, EXCLUDED.partner_id)`]
    : [sql``, sql``, sql``];
  return sql`INSERT INTO customers AS c (id, workspace_id, external_id, name, email, avatar${winColumn})
      SELECT ${customerId}::uuid, ${workspaceId}::uuid, ${c.externalId}::text, ${c.name}::text, ${c.email ?? null}::text, ${c.avatar ?? null}::text${winValue}
      FROM src WHERE src.link_id IS NOT NULL
      ON CONFLICT (workspace_id, external_id) WHERE deleted_at IS NULL DO UPDATE SET ${update}${winUpdate}
      RETURNING c.*`;
}

/** Where an event takes its link and its click's dimensions from: the click, or an earlier lead of it. */
export type EventOrigin = { clickId: string } | { leadId: string };

/** The dimensions an event copies from its click, so that grouping events never joins clicks (the A/B test and variant too). */
const DIMENSIONS =
  'partner_id, country, device, browser, os, referrer, referrer_url, utm_source, utm_medium, utm_campaign, utm_term, utm_content, trigger, region, city, test_id, variant';

/** The event's link and dimensions: from its click (the redirect's table, read in the same statement), or from the lead it follows (no row: unknown). */
function sourceSql(workspaceId: string, from: EventOrigin) {
  return 'leadId' in from
    ? sql`SELECT link_id, ${sql.raw(DIMENSIONS)} FROM lead_events WHERE id = ${from.leadId}::uuid AND workspace_id = ${workspaceId}::uuid`
    : sql`SELECT link_id, ${sql.raw(DIMENSIONS)} FROM clicks WHERE id = ${from.clickId}::uuid AND workspace_id = ${workspaceId}::uuid LIMIT 1`;
}

/** Rollup rows are written in key order (two statements never deadlock on them). */
const KEY_ORDER = sql`ORDER BY ev.workspace_id, k.scope_id, k.dim COLLATE "C", k.level, 5, k.value COLLATE "C", k.partner_id`;

/**
 * Adds the event to the rollups in the same statement that records it. `analytics_rollups` is
 * the analytics module's table, written here for the same reason as `customers` above: one
 * statement per event, so the event and its counts never disagree. On `slot`, one for all of
 * the statement's rollup rows (lent by analytics' onRollupSlot, or drawn at random): concurrent
 * events rarely wait on the same rows, and rows are taken in key order, so two statements never
 * deadlock.
 */
function rollupEventSql(counts: SQL, conflict: SQL, slot: number) {
  return sql`INSERT INTO analytics_rollups AS r (workspace_id, scope_id, dim, level, bucket, value, partner_id, slot, clicks, leads, sales, amount)
      SELECT ev.workspace_id, k.scope_id, k.dim, k.level, analytics_bucket(k.level, ev.created_at), k.value, k.partner_id, ${slot}::smallint, ${counts}
      ${eventKeys()} ${KEY_ORDER}
      ON CONFLICT (workspace_id, scope_id, dim, level, bucket, value, partner_id, slot) DO UPDATE SET ${conflict}
      RETURNING 1`;
}

/**
 * A sale's money in its currency (`analytics_revenue_rollups`, migration 0018, the analytics
 * module's table too): `counts` are its sales, net amount and refunded amount, under the keys
 * of its analytics_rollups rows, in the same statement and key order, after them (`ru`).
 */
function revenueEventSql(counts: SQL, slot: number) {
  return sql`INSERT INTO analytics_revenue_rollups AS r (workspace_id, scope_id, dim, level, bucket, value, partner_id, currency, slot, sales, amount, refunded)
      SELECT ev.workspace_id, k.scope_id, k.dim, k.level, analytics_bucket(k.level, ev.created_at), k.value, k.partner_id, ev.currency, ${slot}::smallint, ${counts}
      ${eventKeys('ru')} ${KEY_ORDER}
      ON CONFLICT (workspace_id, scope_id, dim, level, bucket, value, partner_id, currency, slot)
      DO UPDATE SET sales = r.sales + EXCLUDED.sales, amount = r.amount + EXCLUDED.amount, refunded = r.refunded + EXCLUDED.refunded
      RETURNING 1`;
}

/** A lead's counts: analytics_rollups, then its link's day. */
const LEAD_ROLLUPS = (slot: number): SQL => sql`ru AS (${rollupEventSql(sql`0, 1, 0, 0`, sql`leads = r.leads + EXCLUDED.leads`, slot)}),
      ld AS (${linkDaysOfEvents(1, 0, 'ru', slot)})`;

/** A sale's counts and money: analytics_rollups, the revenue rollups, its link's day and its link's money. */
const SALE_ROLLUPS = (
  slot: number,
): SQL => sql`ru AS (${rollupEventSql(sql`0, 0, 1, ev.amount - ev.refunded_amount`, sql`sales = r.sales + EXCLUDED.sales, amount = r.amount + EXCLUDED.amount`, slot)}),
      rm AS (${revenueEventSql(sql`1, ev.amount - ev.refunded_amount, ev.refunded_amount`, slot)}),
      ld AS (${linkDaysOfEvents(0, 1, 'rm', slot)}),
      lm AS (${linkRevenueOfSales(sql`amount - refunded_amount`, sql`refunded_amount`, 'ld', slot)})`;

/**
 * When an event's rollups are written: in its recording statement (`now`), or, for an event of a
 * partner's click, by rollUpEvent as the last write of the caller's transaction
 * (`lastUnlessPlain`). Rollup rows are shared by every event of a link and day: their locks are
 * held until the commit, and a partner's event still has its commission to decide and write
 * first. Written last, the rows are held for one statement, as a plain event holds them.
 */
export type RollupTiming = 'now' | 'lastUnlessPlain';

/** How the conversion writer asks a lead or sale to be recorded: its rollups' timing, and a lead's commission facts to read with it. */
export interface WritePlan {
  rollups: RollupTiming;
  /** The rollup slot of all the event's rollup rows (analytics' onRollupSlot). */
  slot: number;
  clickPartnerFacts?: (of: { kind: 'lead' | 'sale'; clickId: string; referredAt?: SQL }) => { ctes: SQL; row: SQL };
  /**
   * A lead's or sale's commission decided before its statement (commissions' plannedCommissionWrite),
   * for the customer the statement would make; `invoiceRepeat`, a sale statement's expression of it.
   */
  commission?: (newCustomerId: string, invoiceRepeat?: SQL) => PlannedWrite;
}

/** What an event's statement writes of its planned commission: the customer won, the commission's WITH query, and the column checking the plan. */
export interface PlannedWrite {
  winFor?: string;
  insert?: SQL;
  holds?: SQL;
}

/** The name of the recording statement's insert: `ev` itself, or `ins` when `ev` keeps only what is rolled up now. */
const inserted = (timing: RollupTiming = 'now') => sql.raw(timing === 'now' ? 'ev' : 'ins');

/** The rollup writes of the statement; with `lastUnlessPlain`, `ev` is the inserted event only when it has no partner (the final SELECT reads `ins` as `ev`). */
function rolledUp(timing: RollupTiming = 'now', slot = randomInt(ROLLUP_SLOTS), rollups: (slot: number) => SQL): SQL {
  if (timing === 'now') return rollups(slot);
  return sql`ev AS (SELECT * FROM ins WHERE ins.partner_id IS NULL),
      ${rollups(slot)}`;
}

const rollupsDeferred = (timing: RollupTiming = 'now') => (timing === 'now' ? sql`false` : sql`ev.partner_id IS NOT NULL`);

/** The commission facts' WITH queries, after the statement's own (none unless asked). */
const factsCtes = (facts?: { ctes: SQL }) =>
  facts
    ? sql`,
      ${facts.ctes}`
    : sql``;

/** A planned commission's WITH query, after the statement's own. */
const plannedCte = (planned?: PlannedWrite) =>
  planned?.insert
    ? sql`,
      cm AS (${planned.insert})`
    : sql``;

/** The column that checks the plan (it raises when the plan no longer holds). */
const plannedColumn = (planned?: PlannedWrite) => (planned?.holds ? sql`, ${planned.holds} AS "planHolds"` : sql``);

/** What the conversion writer reads beside the event: whether its rollups were left for later, and the facts asked for. */
const writerColumns = (timing: RollupTiming | undefined, facts?: { row: SQL }) =>
  sql`${rollupsDeferred(timing)} AS "rollupsDeferred"${
    facts
      ? sql`,
        (SELECT row_to_json(f) FROM (${facts.row}) f) AS "clickPartnerFacts"`
      : sql``
  }`;

/** The customer as the API's Customer record (customers/schemas.ts), read from the upsert's `c`. */
const CUSTOMER_COLUMNS = `c.id, c.external_id AS "externalId", c.name, c.email, c.avatar, c.partner_id AS "partnerId",
  ${isoTimestamp('c.created_at')} AS "createdAt", ${isoTimestamp('c.updated_at')} AS "updatedAt"`;

const prefixed = (alias: string, columns: string) =>
  columns
    .split(', ')
    .map((c) => `${alias}.${c}`)
    .join(', ');

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

export interface EventRow {
  id: string;
  eventName: string;
  source: EventSource;
  clickId: string;
  linkId: string;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  customer: CustomerRow;
  /** What commissions read (not in the API's record): the click's partner as it recorded it, the click's time and country. */
  partnerId: string | null;
  clickAt: string | null;
  country: string | null;
  /** The event's rollups are left to rollUpEvent, later in the caller's transaction (`rollups: 'lastUnlessPlain'`). */
  rollupsDeferred: boolean;
  /** A lead's commission facts for its click's partner, when asked (`facts`): commissions' row, null when none. */
  clickPartnerFacts?: unknown;
}

export interface SaleRow extends EventRow {
  amount: number;
  currency: string;
  leadId: string | null;
  /** Whether an earlier sale of the workspace names the same invoiceId (it earns nothing). */
  invoiceRepeat: boolean;
}

/**
 * Click lookup, customer upsert and event insert in one statement: one round trip per tracked
 * event. With `linkId` null the link comes from the click; no such click → undefined, nothing written.
 */
export async function recordLead(
  conn: Conn,
  e: {
    id: string;
    workspaceId: string;
    customerId: string;
    eventName: string;
    clickId: string;
    from: EventOrigin;
    metadata: unknown;
    customer: CustomerInput;
    /** Default server. A client event keeps an existing customer as it is. */
    source?: EventSource;
    rollups?: RollupTiming;
    /** The rollup slot (default: one at random). */
    slot?: number;
    /** Commissions' WITH queries and row of the lead's facts, read here (their scalar queries of `src` and `c` name the click's partner and the customer). */
    facts?: { ctes: SQL; row: SQL };
    /** The commission decided before (WritePlan's), written here with the lead. */
    commission?: WritePlan['commission'];
  },
): Promise<EventRow | undefined> {
  const planned = e.commission?.(e.customerId);
  const [row] = await preparedRows<EventRow>(
    conn,
    sql`WITH src AS (${sourceSql(e.workspaceId, e.from)}),
      c AS (${upsertCustomerSql(e.workspaceId, e.customerId, e.customer, e.source === 'client', planned?.winFor)}),
      ${inserted(e.rollups)} AS (
        INSERT INTO lead_events (id, workspace_id, event_name, click_id, link_id, customer_id, metadata, source, ${sql.raw(DIMENSIONS)})
        SELECT ${e.id}::uuid, ${e.workspaceId}::uuid, ${e.eventName}::text, ${e.clickId}::uuid, src.link_id, c.id, ${json(e.metadata)}::jsonb, ${e.source ?? 'server'}::text,
          ${sql.raw(prefixed('src', DIMENSIONS))}
        FROM c, src
        RETURNING *),
      ${rolledUp(e.rollups, e.slot, LEAD_ROLLUPS)}${factsCtes(e.facts)}${plannedCte(planned)}
      SELECT ev.id, ev.event_name AS "eventName", ev.source, ev.click_id AS "clickId", ev.link_id AS "linkId", ev.metadata,
        ${sql.raw(isoTimestamp('ev.created_at'))} AS "createdAt", ev.partner_id AS "partnerId", ev.country,
        (SELECT ${sql.raw(isoTimestamp('k.created_at'))} FROM clicks k WHERE k.id = ev.click_id AND k.workspace_id = ev.workspace_id LIMIT 1) AS "clickAt",
        (SELECT row_to_json(x) FROM (SELECT ${sql.raw(CUSTOMER_COLUMNS)} FROM c) x) AS customer,
        ${writerColumns(e.rollups, e.facts)}${plannedColumn(planned)}
      FROM ${inserted(e.rollups)} AS ev`,
  );
  return row;
}

/** The scalar queries of recordLead's and recordSale's statements that name the click's partner and the customer (for `facts`). */
export const RECORDING_PARTNER = sql`(SELECT partner_id FROM src)`;
export const RECORDING_CUSTOMER = sql`(SELECT id FROM c)`;

/** Whether an earlier sale of the workspace names the sale `ev`'s invoice (a column of its statement). */
const INVOICE_REPEAT = sql`ev.invoice_id IS NOT NULL AND EXISTS (SELECT 1 FROM sale_events o WHERE o.workspace_id = ev.workspace_id AND o.invoice_id = ev.invoice_id AND o.id <> ev.id)`;

export async function recordSale(
  conn: Conn,
  e: {
    id: string;
    workspaceId: string;
    customerId: string;
    eventName: string;
    amount: number;
    currency: string;
    clickId: string;
    leadId: string | null;
    from: EventOrigin;
    metadata: unknown;
    customer: CustomerInput;
    /** Stripe (operations.md §12): the invoice and payment intent that paid it, and a refund that arrived first. */
    stripe?: { invoiceId: string | null; paymentIntentId: string | null; refundedAmount: number };
    /** POST /api/track/sale's invoiceId, or a Stripe sale's invoice: a second sale naming one earns nothing. */
    invoiceId?: string | null;
    /** Default server. A client event keeps an existing customer as it is. */
    source?: EventSource;
    rollups?: RollupTiming;
    slot?: number;
    /** As recordLead's. */
    facts?: { ctes: SQL; row: SQL };
    commission?: WritePlan['commission'];
  },
): Promise<SaleRow | undefined> {
  const stripe = e.stripe ?? { invoiceId: null, paymentIntentId: null, refundedAmount: 0 };
  const planned = e.commission?.(e.customerId, INVOICE_REPEAT);
  const [row] = await preparedRows<SaleRow>(
    conn,
    sql`WITH src AS (${sourceSql(e.workspaceId, e.from)}),
      c AS (${upsertCustomerSql(e.workspaceId, e.customerId, e.customer, e.source === 'client', planned?.winFor)}),
      ${inserted(e.rollups)} AS (
        INSERT INTO sale_events (id, workspace_id, event_name, amount, currency, click_id, link_id, lead_id, customer_id, metadata,
          refunded_amount, stripe_invoice_id, stripe_payment_intent_id, invoice_id, source, ${sql.raw(DIMENSIONS)})
        SELECT ${e.id}::uuid, ${e.workspaceId}::uuid, ${e.eventName}::text, ${e.amount}::bigint, ${e.currency}::text, ${e.clickId}::uuid,
          src.link_id, ${e.leadId}::uuid, c.id, ${json(e.metadata)}::jsonb,
          LEAST(${stripe.refundedAmount}::bigint, ${e.amount}::bigint), ${stripe.invoiceId}::text, ${stripe.paymentIntentId}::text,
          ${e.invoiceId ?? stripe.invoiceId}::text, ${e.source ?? 'server'}::text,
          ${sql.raw(prefixed('src', DIMENSIONS))}
        FROM c, src
        RETURNING *),
      ${rolledUp(e.rollups, e.slot, SALE_ROLLUPS)}${factsCtes(e.facts)}${plannedCte(planned)}
      SELECT ev.id, ev.event_name AS "eventName", ev.source, ev.amount::float8 AS amount, ev.currency, ev.click_id AS "clickId",
        ev.link_id AS "linkId", ev.lead_id AS "leadId", ev.metadata, ${sql.raw(isoTimestamp('ev.created_at'))} AS "createdAt",
        ${INVOICE_REPEAT} AS "invoiceRepeat",
        ev.partner_id AS "partnerId", ev.country,
        (SELECT ${sql.raw(isoTimestamp('k.created_at'))} FROM clicks k WHERE k.id = ev.click_id AND k.workspace_id = ev.workspace_id LIMIT 1) AS "clickAt",
        (SELECT row_to_json(x) FROM (SELECT ${sql.raw(CUSTOMER_COLUMNS)} FROM c) x) AS customer,
        ${writerColumns(e.rollups, e.facts)}${plannedColumn(planned)}
      FROM ${inserted(e.rollups)} AS ev`,
  );
  return row;
}

/** Writes the rollups a recording statement left to the end of its transaction (RollupTiming), as that statement would have. */
export async function rollUpEvent(conn: Conn, kind: 'lead' | 'sale', workspaceId: string, id: string, slot?: number): Promise<void> {
  await preparedRows(conn, sql`WITH ${eventRollupsSql(kind, workspaceId, id, slot)} SELECT 1`);
}

/** The WITH queries of rollUpEvent, for another statement of the transaction to run (the commission's insert). */
export function eventRollupsSql(kind: 'lead' | 'sale', workspaceId: string, id: string, slot = randomInt(ROLLUP_SLOTS)): SQL {
  const table = sql.raw(kind === 'lead' ? 'lead_events' : 'sale_events');
  return sql`ev AS (SELECT * FROM ${table} WHERE id = ${id}::uuid AND workspace_id = ${workspaceId}::uuid),
      ${kind === 'lead' ? LEAD_ROLLUPS(slot) : SALE_ROLLUPS(slot)}`;
}

export interface StripeSaleRef {
  id: string;
  amount: number;
  refundedAmount: number;
}

/** The workspace's sale paid by this Stripe invoice or payment intent (§12), locked until the transaction ends. */
export async function stripeSale(conn: Conn, workspaceId: string, by: { invoiceId: string } | { paymentIntentId: string }): Promise<StripeSaleRef | undefined> {
  const match = 'invoiceId' in by ? sql`stripe_invoice_id = ${by.invoiceId}` : sql`stripe_payment_intent_id = ${by.paymentIntentId}`;
  const [row] = await rows<StripeSaleRef>(
    conn,
    sql`SELECT id, amount::float8 AS amount, refunded_amount::float8 AS "refundedAmount" FROM sale_events
        WHERE workspace_id = ${workspaceId}::uuid AND ${match} ORDER BY seq LIMIT 1 FOR UPDATE`,
  );
  return row;
}

/**
 * Sets a sale's refunded amount and takes the difference off its rollups, in the sale's own
 * period and dimensions (revenue is net of refunds where the sale counts), and adds it to the
 * refunded amount of its currency, in one statement.
 */
export async function setRefundedAmount(
  conn: Conn,
  r: { workspaceId: string; saleId: string; refundedAmount: number },
): Promise<{ amount: number; refundedAmount: number } | undefined> {
  const slot = randomInt(ROLLUP_SLOTS);
  const [row] = await rows<{ amount: number; refundedAmount: number }>(
    conn,
    sql`WITH before AS (
        SELECT refunded_amount, amount FROM sale_events WHERE id = ${r.saleId}::uuid AND workspace_id = ${r.workspaceId}::uuid FOR UPDATE),
      ev AS (
        UPDATE sale_events s SET refunded_amount = LEAST(${r.refundedAmount}::bigint, s.amount)
        FROM before WHERE s.id = ${r.saleId}::uuid AND s.workspace_id = ${r.workspaceId}::uuid AND LEAST(${r.refundedAmount}::bigint, s.amount) <> before.refunded_amount
        RETURNING s.*, s.refunded_amount - before.refunded_amount AS delta),
      ru AS (${rollupEventSql(sql`0, 0, 0, -ev.delta`, sql`amount = r.amount + EXCLUDED.amount`, slot)}),
      rm AS (${revenueEventSql(sql`0, -ev.delta, ev.delta`, slot)}),
      lm AS (${linkRevenueOfSales(sql`-delta`, sql`delta`, 'rm', slot)})
      SELECT b.amount::float8 AS amount, LEAST(${r.refundedAmount}::bigint, b.amount)::float8 AS "refundedAmount" FROM before b`,
  );
  return row;
}

/** A sale of the workspace by id or by the invoice id it names (the first such sale), locked for the caller's transaction. */
export async function saleToRefund(
  conn: Conn,
  workspaceId: string,
  by: { saleId: string } | { invoiceId: string },
): Promise<{ id: string; amount: number; refundedAmount: number } | undefined> {
  const match = 'saleId' in by ? sql`id = ${by.saleId}::uuid` : sql`invoice_id = ${by.invoiceId}`;
  const [row] = await rows<{ id: string; amount: number; refundedAmount: number }>(
    conn,
    sql`SELECT id, amount::float8 AS amount, refunded_amount::float8 AS "refundedAmount" FROM sale_events
        WHERE workspace_id = ${workspaceId}::uuid AND ${match} ORDER BY seq LIMIT 1 FOR UPDATE`,
  );
  return row;
}

/** A sale as POST /api/track/sale answers it, with its refunded amount. */
export async function saleRecord(conn: Conn, workspaceId: string, saleId: string): Promise<(SaleRow & { refundedAmount: number }) | undefined> {
  const [row] = await rows<SaleRow & { refundedAmount: number }>(
    conn,
    sql`SELECT ev.id, ev.event_name AS "eventName", ev.source, ev.amount::float8 AS amount, ev.currency, ev.click_id AS "clickId", ev.link_id AS "linkId",
          ev.lead_id AS "leadId", ev.metadata, ${sql.raw(isoTimestamp('ev.created_at'))} AS "createdAt", ev.refunded_amount::float8 AS "refundedAmount",
          (SELECT row_to_json(x) FROM (SELECT ${sql.raw(CUSTOMER_COLUMNS)} FROM customers c WHERE c.id = ev.customer_id) x) AS customer
        FROM sale_events ev WHERE ev.id = ${saleId}::uuid AND ev.workspace_id = ${workspaceId}::uuid`,
  );
  return row;
}

/** Each customer's country: that of the click of their first lead (null where unknown). */
export async function firstLeadCountries(conn: Conn, workspaceId: string, customerIds: string[]): Promise<Map<string, string | null>> {
  if (customerIds.length === 0) return new Map();
  const found = await rows<{ customerId: string; country: string | null }>(
    conn,
    sql`SELECT DISTINCT ON (customer_id) customer_id AS "customerId", country FROM lead_events
        WHERE workspace_id = ${workspaceId}::uuid AND customer_id ${inList(customerIds, 'uuid')}
        ORDER BY customer_id, seq`,
  );
  return new Map(found.map((r) => [r.customerId, r.country]));
}

/** What a lead or sale by a click reads before its statement, with the program: the click, the customer as it is, the commission facts. */
export interface ConversionPreRead {
  program: unknown;
  click: { partnerId: string | null; linkId: string; country: string | null; createdAt: string } | null;
  customer: { id: string; partnerId: string | null; email: string | null } | null;
  facts: unknown;
  /** A sale naming an invoice: whether a sale of the workspace named it already (null: none named). */
  invoiceRepeat: boolean | null;
  now: string;
}

/**
 * The program (`program`, the program module's query of it; no row: no program) and, for a click
 * of this workspace, the customer of this external id as it is and, for a partner's click, the
 * commission facts (`facts`, commissions' query of the click's partner PRE_READ_PARTNER and the
 * customer PRE_READ_CUSTOMER), in the one statement that reads the program anyway: a lead or sale
 * decides its commission before its own statement.
 */
export async function programAndConversion(
  conn: Conn,
  q: { workspaceId: string; clickId: string; customerExternalId: string; invoiceId?: string; program: SQL; facts: { ctes: SQL; row: SQL } },
): Promise<ConversionPreRead | undefined> {
  const invoice =
    q.invoiceId === undefined
      ? sql`NULL::boolean`
      : sql`EXISTS (SELECT 1 FROM sale_events WHERE workspace_id = ${q.workspaceId}::uuid AND invoice_id = ${q.invoiceId}::text)`;
  const [row] = await preparedRows<ConversionPreRead>(
    conn,
    sql`WITH pre_program AS (${q.program}),
      pre_click AS (
        SELECT partner_id AS "partnerId", link_id AS "linkId", country, ${sql.raw(isoTimestamp('created_at'))} AS "createdAt" FROM clicks
        WHERE id = ${q.clickId}::uuid AND workspace_id = ${q.workspaceId}::uuid AND EXISTS (SELECT 1 FROM pre_program) LIMIT 1),
      pre_customer AS (
        SELECT id, partner_id AS "partnerId", email FROM customers
        WHERE workspace_id = ${q.workspaceId}::uuid AND external_id = ${q.customerExternalId}::text AND deleted_at IS NULL
          AND EXISTS (SELECT 1 FROM pre_click)),
      ${q.facts.ctes}
      SELECT row_to_json(pre_program) AS program, (SELECT row_to_json(pre_click) FROM pre_click) AS click,
        (SELECT row_to_json(pre_customer) FROM pre_customer) AS customer,
        (SELECT row_to_json(f) FROM (${q.facts.row}) f) AS facts, ${invoice} AS "invoiceRepeat", ${sql.raw(isoTimestamp('now()'))} AS now
      FROM pre_program`,
  );
  return row;
}

/** The pre-read's scalar queries of the click's partner and the customer, for the facts it reads. */
export const PRE_READ_PARTNER = sql`(SELECT "partnerId" FROM pre_click)`;
export const PRE_READ_CUSTOMER = sql`(SELECT id FROM pre_customer)`;
