import type { Logger } from 'pino';
import type { Database } from '../../db/connect.js';
import type { ClickFlushBus } from '../../infra/bus.js';
import type { CountryLookup } from '../../infra/country.js';
import type { PlaceLookup } from '../../infra/city.js';
import { ClickWebhooks, type ClickEventDeps } from './click-events.js';
import { ClickQueue } from './queue.js';
import type { RawClick } from './record.js';
import { SpoolReplayer } from './replay.js';
import { ClickSpool } from './spool.js';
import { clickDays, touchReferrerDays } from './referrer-days.js';
import { insertCouponClick, insertReferralClicks, type CouponClick } from './coupon-clicks.js';
import { clickHolders, insertClicks, replayClicks, storeClicks } from './store.js';
import type { ClickRow } from './record.js';
import type { BaseCtx, Ctx } from '../../core/context.js';
import { partnerVisitorCounts, type PartnerVisitorCount } from './partner-visitors.js';
import { visitorHashOn } from './visitors.js';
import type { IdHolder } from '../../db/resource-table.js';

export type { ClickRow, RawClick, Utm } from './record.js';
export { networkOf } from './visitors.js';
export type { ClickVisitorFacts } from './visitors.js';

/**
 * What the fraud rules read of a click (operations.md §18 "burst", "sameVisitor"): its visitor
 * hash and UTC day, and the workspace's leads since an hour before `at` from its visitor or its
 * network, counted up to `countUpTo`; no row when the click is no partner's human click of the
 * last 24 hours. A query of the statement of the commission a conversion earns, in its transaction.
 */
export { clickVisitorFactsSql } from './visitors.js';

/** The visitor hash (§14) an address and user agent have today (UTC, by `ctx.now`), with the day: what a sign-in records. */
export function visitorHashToday({ ctx, input }: { ctx: BaseCtx; input: { ip: string; userAgent: string } }): Promise<{ day: string; hash: string }> {
  return visitorHashOn(ctx.db, ctx.now, input.ip, input.userAgent);
}

/** Which of these click ids are stored, here or in another workspace (an import keeps free ids, so visitors' click ids keep working). */
export function importedClickHolders({ ctx, input }: { ctx: Ctx; input: string[] }): Promise<IdHolder[]> {
  return clickHolders(ctx.db, ctx.workspace.id, input);
}

/**
 * Clicks an import brings (operations.md §13), as stored records of this workspace: written with
 * their rollups in one statement, in the caller's transaction, exactly as the click writer
 * writes a batch (a click already stored is skipped and counted once), so GET /api/analytics
 * counts them as it counted them where they came from. No link.clicked webhooks: they happened
 * long ago.
 */
export async function insertImportedClicks({ ctx, input }: { ctx: Ctx; input: Omit<ClickRow, 'workspaceId' | 'bot'>[] }): Promise<void> {
  const workspaceId = ctx.workspace.id;
  // Touched in the import's transaction: a cut meanwhile waits for it, then leaves the mark for the next run.
  await touchReferrerDays(ctx.db, clickDays(input.map((c) => ({ workspaceId, at: Date.parse(c.createdAt) }))));
  await insertClicks(
    ctx.db,
    input.map((c) => ({ ...c, workspaceId, bot: false })),
  );
}
/** Records the clicks an affiliate-tool import's referred customers stand on, dated, counted nowhere (coupon-clicks.ts), in the caller's transaction. */
export function recordImportedReferralClicks({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; linkId: string; partnerId: string; createdAt: string }[];
}): Promise<void> {
  return insertReferralClicks(ctx.db, ctx.workspace.id, input);
}

/** Records the click a partner's coupon code stands for, in the caller's transaction (`ctx.db`), counted nowhere (coupon-clicks.ts). */
export function recordCouponClick({ ctx, input }: { ctx: Ctx; input: Omit<CouponClick, 'workspaceId'> }): Promise<void> {
  return insertCouponClick(ctx.db, { ...input, workspaceId: ctx.workspace.id });
}

export type { ClickEvent, ClickEventDeps } from './click-events.js';
export type { PartnerVisitorCount } from './partner-visitors.js';

/**
 * Each partner's distinct visitors by UTC day and the country of their first click there (the
 * click rewards of operations.md §18), over every workspace listed, from its `since` to `before`:
 * one statement across workspaces (the click-reward job's).
 */
export function partnerVisitorDays({
  ctx,
  input,
}: {
  ctx: BaseCtx;
  input: { workspaces: { id: string; since: string }[]; before: string };
}): Promise<PartnerVisitorCount[]> {
  return partnerVisitorCounts(ctx.db, input.workspaces, input.before);
}
export { clickMaintenanceJobs } from './maintenance.js';

/** What the pipeline reads of the configuration. */
export interface ClickSettings {
  /** Where each process spools its clicks before answering; none: no spool. */
  clickSpoolDir: string | undefined;
  clickSpoolSyncMs: number;
  clickRetentionMonths: number | undefined;
}

export interface ClickPipelineOptions {
  database: Database;
  config: ClickSettings;
  logger: Logger;
  bus: ClickFlushBus;
  lookupCountry: CountryLookup;
  /** The operator's city database (GEOIP_CITY_DB); absent: places come from edge headers only. */
  lookupPlace?: PlaceLookup;
  /** link.clicked webhooks, written by the batch writer; absent: none. */
  clickEvents?: ClickEventDeps;
  /** Told after each batch is stored (the table statistics it makes stale); absent: nothing. */
  onBatchWritten?: () => void;
}

/**
 * What the redirect records clicks with. It is the queue itself, so the hot path calls its
 * methods directly, as before: no wrapper, no closure per request.
 */
export interface ClickRecorder {
  /** Redirects answered (including HEAD and prefetches, which are not clicks). */
  redirects: number;
  /** Records a click; `done` runs once it is durable: answer the visitor then, not before. */
  record(click: RawClick, done: () => void): void;
  /** `record` as a promise, for the framework route. */
  enqueue(click: RawClick): Promise<void>;
  /** Whether a click can be recorded without waiting. */
  hasRoom(): boolean;
}

/** The clicks part of `GET /admin/metrics`. */
export interface ClickMetrics {
  redirects: number;
  recorded: number;
  written: number;
  queued: number;
  spilled: number;
  spoolBytes: number;
  replayed: number;
}

export interface ClickPipeline {
  recorder: ClickRecorder;
  /** Whether a click id of this workspace was handed out but is not yet in the database. */
  isClickPending(clickId: string, workspaceId: string): boolean;
  /** Writes every click this process has queued so far. */
  flush(): Promise<void>;
  /** Asks every instance to write its queued clicks soon (through the bus). */
  requestFlush(): Promise<void>;
  metrics(): ClickMetrics;
  /** Writes what it can (the rest stays in the spool) and stops the replay. */
  close(): Promise<void>;
}

/**
 * The click pipeline of this process: the queue that batches clicks into the database, the
 * spool and its replayer (when CLICK_SPOOL_DIR is set), and the flush requests of other
 * instances. Its periodic maintenance (the monthly partitions and retention of `clicks`) is
 * clickMaintenanceJobs, run by the maintenance scheduler.
 */
export function startClickPipeline({
  database,
  config,
  logger,
  bus,
  lookupCountry,
  lookupPlace,
  clickEvents,
  onBatchWritten,
}: ClickPipelineOptions): ClickPipeline {
  const webhooks = clickEvents && new ClickWebhooks(clickEvents, lookupCountry);
  /** A batch with its link.clicked events, in one transaction (queued and replayed clicks alike). */
  const writeBatch = (store: typeof storeClicks) => async (batch: RawClick[]) => {
    const outbox = await webhooks?.outboxOf(batch);
    if (lookupPlace) withPlaces(batch, lookupPlace);
    await store(database, batch, lookupCountry, outbox);
    if (outbox) webhooks?.written();
    onBatchWritten?.();
  };
  const clicks = new ClickQueue(writeBatch(storeClicks), logger);
  const durable = config.clickSpoolDir ? startSpool(config.clickSpoolDir, config.clickSpoolSyncMs, clicks, logger, writeBatch(replayClicks)) : undefined;
  bus.onClickFlushRequest(() => void clicks.flushSoon().catch(() => undefined));
  return {
    recorder: clicks,
    isClickPending: (id, workspaceId) => clicks.isPending(id, workspaceId),
    flush: () => clicks.flush(),
    requestFlush: () => bus.requestClickFlush(),
    metrics: () => ({
      redirects: clicks.redirects,
      recorded: clicks.accepted,
      written: clicks.written,
      queued: clicks.size,
      spilled: clicks.spilled,
      spoolBytes: durable?.spool.bytes ?? 0,
      replayed: durable?.replayer.replayed ?? 0,
    }),
    async close() {
      await clicks.close();
      await durable?.replayer.close();
    },
  };
}

/**
 * Region and city from the city database, in the writer (never on the redirect): for clicks
 * whose edge sent neither (a trusted header wins over the address, as for the country).
 */
function withPlaces(batch: RawClick[], lookup: PlaceLookup): void {
  for (const c of batch) {
    if (c.region !== undefined || c.city !== undefined) continue;
    const place = lookup(c.ip);
    if (place?.region) c.region = place.region;
    if (place?.city) c.city = place.city;
  }
}

/**
 * The click spool of this process and the replay of spilled clicks and of files that dead
 * processes left in the same directory (searched now, in the background, and every 30 s).
 */
function startSpool(dir: string, syncMs: number, clicks: ClickQueue, logger: Logger, store: (batch: RawClick[]) => Promise<void>) {
  const late: { replayer?: SpoolReplayer } = {};
  const spool = new ClickSpool(
    { dir, syncMs },
    logger,
    (path) => late.replayer?.add(path),
    (taken) => clicks.takeBack(taken),
  );
  const replayer = (late.replayer = new SpoolReplayer({ dir, owner: spool.owner, store, log: logger }));
  clicks.useSpool(spool);
  void replayer.scan().catch((err: unknown) => logger.warn({ err }, 'spool scan failed'));
  return { spool, replayer };
}
