/**
 * Click rewards (operations.md §18 "Commissions" → "Click rewards"): per partner and UTC day, the
 * distinct visitors (§14's daily hash) of the partner's links that day — humans, GET clicks that
 * are no prefetch and no coupon's, counted by the click writer (clicks/partner-visitors.ts) —
 * capped by the reward's maxPerDay, times its amount, written once as a `click` commission with
 * `clickDay` by the hourly periodic maintenance (one instance per hour).
 */
import type { Logger } from 'pino';
import type { Ctx } from '../../core/context.js';
import { withTransaction } from '../../core/transaction.js';
import type { Database } from '../../db/connect.js';
import { newId } from '../../db/ids.js';
import type { MaintenanceJob } from '../../infra/maintenance.js';
import { partnerVisitorDays, type ClickPipeline, type PartnerVisitorCount } from '../clicks/service.js';
import { partnerStanding } from '../partners/service.js';
import { programsPayingClicks, rewardFor, type ClickPayingProgram, type Reward } from '../program/service.js';
import { requireWorkspace } from '../workspaces/service.js';
import { commissionsCreated } from './events.js';
import { insertCommissions, type NewCommission } from './store.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A day is paid once this much of the next has passed (the click writers have flushed it by then: see payClickRewards). */
const AFTER_DAY_MS = HOUR_MS;
/** How many past days a run looks at: days a stopped service missed are paid when it is back within them. */
export const CATCH_UP_DAYS = 7;

export interface ClickRewardDeps {
  database: Database;
  /** This instance's click writer: flushed before the days are read, and asked to have the others flush theirs. */
  clicks: Pick<ClickPipeline, 'flush' | 'requestFlush'>;
  log: Logger;
}

/** The periodic job: every hour, the days that ended an hour or more ago and are not paid yet. */
export function clickRewardJob(deps: ClickRewardDeps): MaintenanceJob {
  return {
    name: 'commissions.click-rewards',
    periodMs: HOUR_MS,
    run: async (now) => {
      const written = await payClickRewards(deps, now);
      if (written > 0) deps.log.info({ commissions: written }, 'click rewards written');
    },
  };
}

/** The UTC midnights (ms) of the first and last day a run at `now` pays: the last CATCH_UP_DAYS days over by AFTER_DAY_MS. */
export function payableDays(now: Date): { first: number; last: number } {
  const last = Math.floor((now.getTime() - AFTER_DAY_MS) / DAY_MS) * DAY_MS - DAY_MS;
  return { first: last - (CATCH_UP_DAYS - 1) * DAY_MS, last };
}

/**
 * Writes the click commissions of the payable days of every workspace whose program pays for
 * clicks; a (partner, day) paid already is left out by commissions_click_day, so runs may repeat
 * (two instances, a retry, the catch-up of the next hours) and the day is written once. A fixed
 * number of statements: the programs and the visitor counts for all workspaces at once, then per
 * workspace with visitors its workspace, its partners' standing, and the commissions with their
 * `commission.created` events in one transaction. Returns how many commissions were written.
 *
 * "Flushed up to 00:00": each instance writes its own queue of clicks (its spool is only a copy
 * of that queue, for crashes) within about a second of the click; nothing tells one instance what
 * another holds. So a day is read an hour after it ends, once this instance has written its own
 * queue and asked every other to write theirs (the bus): a click of the day not stored by then is
 * in a writer that has failed for an hour (retried, with its database down) or in the spool of a
 * crashed instance not replayed by then, and is not paid.
 */
export async function payClickRewards(deps: ClickRewardDeps, now: Date): Promise<number> {
  const ctx = { db: deps.database.db, now };
  const programs = await programsPayingClicks({ ctx });
  if (programs.length === 0) return 0;
  const { first, last } = payableDays(now);
  const before = new Date(last + DAY_MS).toISOString();
  // Nothing stored before the program existed earns.
  const workspaces = programs
    .map((p) => ({ id: p.workspaceId, since: new Date(Math.max(first, Date.parse(p.createdAt))).toISOString() }))
    .filter((w) => w.since < before);
  if (workspaces.length === 0) return 0;
  await deps.clicks.flush();
  await deps.clicks.requestFlush();
  const counts = await partnerVisitorDays({ ctx, input: { workspaces, before } });
  const byWorkspace = new Map<string, PartnerVisitorCount[]>();
  for (const c of counts) {
    const list = byWorkspace.get(c.workspaceId);
    if (list) list.push(c);
    else byWorkspace.set(c.workspaceId, [c]);
  }
  let written = 0;
  let failure: { err: unknown } | undefined;
  for (const program of programs) {
    const days = byWorkspace.get(program.workspaceId);
    if (!days) continue;
    // One workspace failing keeps none of the others from being paid; the run fails after them (and is tried again).
    try {
      written += await payWorkspace(deps.database, now, program, days);
    } catch (err) {
      deps.log.warn({ err, workspaceId: program.workspaceId }, "a workspace's click rewards failed");
      failure ??= { err };
    }
  }
  if (failure) throw failure.err;
  return written;
}

/** One workspace's click commissions for its counted days, written with their events. */
async function payWorkspace(database: Database, now: Date, program: ClickPayingProgram, counts: PartnerVisitorCount[]): Promise<number> {
  const workspace = await requireWorkspace({ ctx: { db: database.db, now }, input: { id: program.workspaceId } });
  const ctx: Ctx = { db: database.db, now, workspace };
  // Approved now: a run an hour after the day reads the standing at its end (a ban meanwhile reverses unpaid commissions anyway).
  const standing = await partnerStanding({ ctx, input: [...new Set(counts.map((c) => c.partnerId))] });
  const commissions: NewCommission[] = [];
  for (const [key, rows] of groupBy(counts, (c) => `${c.partnerId}|${c.day}`)) {
    const [partnerId, day] = key.split('|') as [string, string];
    const partner = standing.get(partnerId);
    if (partner?.status !== 'approved') continue;
    const rewards = (program.groupRewards[partner.groupId ?? program.defaultGroupId] ?? program.groupRewards[program.defaultGroupId] ?? []) as Reward[];
    const earnings = dayEarnings(rewards, rows, program.currency);
    if (earnings <= 0) continue;
    commissions.push({
      id: newId(),
      workspaceId: workspace.id,
      partnerId,
      type: 'click',
      linkId: null,
      customerId: null,
      eventId: null,
      saleAmount: null,
      currency: program.currency,
      earnings,
      status: 'pending',
      holdReasons: [],
      reversedReason: null,
      description: null,
      at: now.toISOString(),
      holdingDays: program.holdingDays,
      clickDay: day,
    });
  }
  if (commissions.length === 0) return 0;
  return withTransaction(ctx.db, async (tx) => {
    const written = await insertCommissions(tx, commissions);
    await commissionsCreated({ ...ctx, db: tx }, written);
    return written.length;
  });
}

/**
 * What a partner's day earns: each visitor by the first click reward, in the group's order, whose
 * conditions hold for their first click of the day (a click has only a `country`: conditions on
 * anything else do not hold, but `neq`), each reward paying `amount` for at most `maxPerDay` of
 * its visitors.
 */
export function dayEarnings(rewards: readonly Reward[], countries: readonly { country: string | null; visitors: number }[], currency: string): number {
  const paid = new Map<Reward, number>();
  for (const { country, visitors } of countries) {
    const reward = rewardFor(rewards, { kind: 'click', country }, currency);
    if (reward?.type === 'flat') paid.set(reward, (paid.get(reward) ?? 0) + visitors);
  }
  let earnings = 0;
  for (const [reward, visitors] of paid) earnings += Math.min(visitors, reward.maxPerDay ?? visitors) * reward.amount;
  return earnings;
}

function groupBy<T>(list: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of list) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
