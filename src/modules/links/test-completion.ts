import { audit } from '../../core/audit.js';
import type { Ctx } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { afterCommit, withTransaction } from '../../core/transaction.js';
import type { Conn } from '../../db/connect.js';
import { toLink, type LinkSettings } from './record.js';
import { linkStore } from './store.js';
import { completeTestRow, dueTests, latestTest, leaveTest, type TestRow } from './test-store.js';
import { linkEventsWanted, recordLinkEvents } from './webhook-events.js';

export type { TestRow as LinkTestRow } from './test-store.js';

/** What completing a test needs of the links' dependencies (service.ts LinkDeps). */
export interface TestCompletionDeps extends LinkSettings {
  onChanged?: (linkIds: string[]) => Promise<void> | void;
  onEventsWritten?: () => void;
}

/** A live link's latest A/B test (running, else the last completed); undefined when it never had one. 404 for no such link. */
export async function latestLinkTest({ ctx, input: linkId }: { ctx: Ctx; input: string }): Promise<TestRow | undefined> {
  const id = linkId.toLowerCase();
  if (!(await linkStore.existing(ctx.db, ctx.workspace.id, [id])).has(id)) throw notFound('link', linkId);
  return latestTest(ctx.db, ctx.workspace.id, id);
}

/**
 * Completes a running test (operations.md §20), once across instances and requests: the first
 * to mark it completed wins, the others get false. Its winner and results are kept; the link
 * leaves the test and, with `apply` and a winner, takes the winner's url. link.updated is sent
 * for the link (its record changed), every redirect cache drops it once committed.
 */
export async function completeLinkTest({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: TestCompletionDeps;
  input: { testId: string; winner: number | null; apply: boolean; results: unknown };
}): Promise<TestRow | undefined> {
  return withTransaction(ctx.db, async (tx) => {
    const row = await completeTestRow(tx, ctx.workspace.id, { testId: input.testId, winner: input.winner, results: input.results, now: ctx.now });
    if (!row) return undefined;
    const url = input.apply && input.winner !== null ? (row.variants[input.winner]?.url ?? null) : null;
    if (await leaveTest(tx, ctx.workspace.id, { linkId: row.linkId, testId: row.id, url })) {
      const wanted = await linkEventsWanted(tx, ctx);
      const updated = wanted.has('link.updated') ? (await linkStore.byIds(tx, ctx.workspace.id, [row.linkId])).map((r) => toLink(r, deps)) : [];
      const queued = await recordLinkEvents(tx, ctx, deps.sealer, wanted, { 'link.updated': () => updated });
      afterCommit(tx, () => {
        // A publish that fails leaves the cached link to its TTL (a minute); the redirect stops splitting at endsAt anyway.
        void Promise.resolve(deps.onChanged?.([row.linkId])).catch(() => undefined);
        if (queued > 0) deps.onEventsWritten?.();
      });
    }
    await audit(ctx, tx, { ids: [row.linkId] });
    return row;
  });
}

/** Running tests past their end by the database's clock, across workspaces, oldest end first (the completion job's batch). */
export function dueLinkTests({ db, limit }: { db: Conn; limit: number }): Promise<(TestRow & { workspaceId: string })[]> {
  return dueTests(db, limit);
}
