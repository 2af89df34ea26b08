/**
 * Partners' default links (operations.md §18 "Default link and partner links"): a Link with the
 * program's `landingUrl` and the partner's `partnerId`, in the program's collection, made once,
 * the first time the partner is approved, and named by the partner's read-only `defaultLinkId`.
 * Partners and the program know nothing of links: the wiring gives their writes these hooks
 * (run in the write's transaction), and this module's job makes the links of the partners the
 * program's first PUT approved.
 */
import type { Logger } from 'pino';
import { audit } from '../../core/audit.js';
import type { BaseCtx, Ctx } from '../../core/context.js';
import { afterCommit, withTransaction } from '../../core/transaction.js';
import type { Conn, Tx } from '../../db/connect.js';
import type { MaintenanceJob } from '../../infra/maintenance.js';
import { addFreeAliases, createLinks, retargetLinks, type LinkDeps } from '../links/service.js';
import {
  lockPartnersAwaitingDefaultLinks,
  partnersDefaultLinkIds,
  setPartnersDefaultLinks,
  workspacesAwaitingDefaultLinks,
  type AwaitingPartner,
} from '../partners/service.js';
import { findProgram, programCollection, type ProgramRow } from '../program/service.js';
import { requireWorkspace } from '../workspaces/service.js';

/** How many partners one batch of the job takes (at most the workspace's items per request, which link creation is bounded by). */
const BATCH = 500;
/** Workspaces looked at per round of the job, and rounds per run: what is left waits for the next run. */
const WORKSPACES_PER_ROUND = 20;
const ROUNDS = 50;

/**
 * Makes the default links of these partners (none has one, their rows are locked or written by
 * this transaction: `ctx.db`), in a fixed number of statements whatever their count; answers each
 * partner's link id. With the program's `linkHost`, each link also gets the alias
 * `https://<linkHost>/<referralKey>` where it is free server-wide; a taken one is skipped, not an
 * error: an approval never fails for it, and the partner keeps the link's own short URL.
 */
async function makeDefaultLinks(ctx: Ctx, links: LinkDeps, program: ProgramRow, partners: AwaitingPartner[]): Promise<Map<string, string>> {
  const tx = ctx.db as Tx;
  const collectionId = await programCollection({ ctx, input: program });
  const made = await createLinks({
    // The partner write's audit entry names the links (below); the job's run is no request.
    ctx: { ...ctx, auditIntent: undefined },
    // Webhook deliveries are woken once the caller's transaction commits, not before.
    deps: { ...links, onEventsWritten: () => afterCommit(tx, () => links.onEventsWritten?.()) },
    input: partners.map((p) => ({ url: program.landingUrl, partnerId: p.id, collectionId })),
  });
  const pairs = partners.map((p, i) => ({ partnerId: p.id, linkId: made[i]!.id }));
  if (program.linkHost) {
    const host = program.linkHost;
    await addFreeAliases({
      ctx,
      input: partners.flatMap((p, i) => (p.referralKey ? [{ linkId: made[i]!.id, host, path: `/${p.referralKey}` }] : [])),
    });
  }
  await setPartnersDefaultLinks({ ctx, input: pairs });
  await audit(ctx, tx, { ids: pairs.map((p) => p.linkId) });
  return new Map(pairs.map((p) => [p.partnerId, p.linkId]));
}

/** What the wiring gives the partner and program writes, and this module's job. */
export interface PartnerLinks {
  /** Partners approved by a partner write (created approved or moved to approved), without a default link. */
  onApproved(ctx: Ctx, approved: AwaitingPartner[]): Promise<Map<string, string>>;
  /** A program PUT, in its transaction. */
  onWritten(ctx: Ctx, change: { before: ProgramRow | undefined; after: ProgramRow }): Promise<void>;
  /** The job making the default links of approved partners without one (those the first PUT approved). */
  job: MaintenanceJob;
  /** Runs the job in this instance now (after the first PUT commits), once at a time. */
  kick(): void;
  /** Resolves once no run asked for by kick is under way (closing). */
  idle(): Promise<void>;
}

export function partnerLinks(o: { db: Conn; clock: () => Date; links: LinkDeps; log: Logger }): PartnerLinks {
  const { links } = o;

  /** One workspace's batch, in one transaction: how many partners got their link. */
  async function batch(base: BaseCtx, workspaceId: string): Promise<number> {
    const workspace = await requireWorkspace({ ctx: base, input: { id: workspaceId } });
    return withTransaction(o.db, async (tx) => {
      const ctx: Ctx = { db: tx, now: base.now, workspace };
      const program = await findProgram({ ctx });
      if (!program) return 0;
      const partners = await lockPartnersAwaitingDefaultLinks({ ctx, input: { limit: Math.min(BATCH, workspace.maxBulkItems) } });
      if (partners.length) await makeDefaultLinks(ctx, links, program, partners);
      return partners.length;
    });
  }

  /**
   * Rounds of batches until no workspace has partners waiting, or none this instance may take
   * (another holds their rows), or the run's share is done. A workspace whose batch fails is
   * logged and left for the next run, so it never holds up the others; the run fails at its end.
   */
  async function run(now: Date): Promise<void> {
    const base: BaseCtx = { db: o.db, now };
    const failed: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const workspaces = await workspacesAwaitingDefaultLinks({ ctx: base, input: { limit: WORKSPACES_PER_ROUND, except: failed } });
      let made = 0;
      for (const id of workspaces) {
        made += await batch(base, id).catch((err: unknown) => {
          o.log.warn({ err, workspaceId: id }, "partners' default links: a workspace's batch failed; tried again in the next run");
          failed.push(id);
          return 0;
        });
      }
      if (made === 0) break;
    }
    if (failed.length) throw new Error(`partners' default links: the batches of ${failed.length} workspace(s) failed`);
  }

  let running: Promise<void> | undefined;
  let again = false;
  function kick(): void {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await run(o.clock()).catch((err: unknown) => o.log.warn({ err }, "partners' default links: the run failed; the periodic job tries again"));
      } while (again);
    })().finally(() => (running = undefined));
  }

  return {
    onApproved: async (ctx, approved) => {
      const program = await findProgram({ ctx });
      return program ? makeDefaultLinks(ctx, links, program, approved) : new Map();
    },
    onWritten: async (ctx, { before, after }) => {
      // The first PUT approved the partners that existed: the job makes their links once it commits.
      if (!before) return afterCommit(ctx.db as Tx, kick);
      if (before.landingUrl === after.landingUrl) return;
      // A default link follows the landing URL unless its url was edited: one whose url is still
      // the old landing URL was not (set back to it by hand, it is the same link again), so only
      // those move. No column records an edit; the url itself tells.
      const ids = await partnersDefaultLinkIds({ ctx });
      const moved = await retargetLinks({ ctx, deps: links, input: { ids, from: before.landingUrl, to: after.landingUrl } });
      if (moved.length) await audit(ctx, ctx.db as Tx, { ids: moved });
    },
    job: { name: 'partner-links.default-links', periodMs: 60_000, run },
    kick,
    idle: async () => {
      while (running) await running;
    },
  };
}
