import type { Logger } from 'pino';
import type { Ctx } from '../../core/context.js';
import { AppError, invalid } from '../../core/errors.js';
import type { Conn } from '../../db/connect.js';
import type { MaintenanceJob } from '../../infra/maintenance.js';
import { testDayFigures } from '../analytics/service.js';
import { completeLinkTest, dueLinkTests, latestLinkTest, type LinkDeps, type LinkTestRow } from '../links/service.js';
import { requireWorkspace } from '../workspaces/service.js';
import { testFigures, winnerOf, type TestFigures } from './results.js';

/** GET /api/links/{id}/test: a test and its figures. */
export interface LinkTestAnswer extends TestFigures {
  testId: string;
  status: 'running' | 'completed';
  endsAt: string;
  metric: LinkTestRow['metric'];
  currency: string | null;
  autoApply: boolean;
  startedAt: string;
  completedAt: string | null;
  winner: number | null;
}

const answerOf = (t: LinkTestRow, figures: TestFigures): LinkTestAnswer => ({
  testId: t.id,
  status: t.status,
  endsAt: t.endsAt,
  metric: t.metric,
  currency: t.currency,
  autoApply: t.autoApply,
  startedAt: t.startedAt,
  completedAt: t.completedAt,
  variants: figures.variants,
  winner: t.status === 'completed' ? t.winner : null,
  days: figures.days,
});

/** A test's figures: kept at completion, else counted now (`primary`: from the primary, for a decision). */
async function figuresOf(ctx: Ctx, t: LinkTestRow, primary = false): Promise<TestFigures> {
  if (t.results) return t.results as TestFigures;
  return testFigures(t, await testDayFigures({ ctx, input: { testId: t.id, primary } }));
}

/** The link's latest A/B test (the running one, else the last completed) with its figures (operations.md §20). */
export async function linkTestResults({ ctx, input }: { ctx: Ctx; input: { linkId: string } }): Promise<LinkTestAnswer> {
  const test = await latestLinkTest({ ctx, input: input.linkId });
  if (!test) throw new AppError('link_test_none', { id: input.linkId });
  return answerOf(test, await figuresOf(ctx, test));
}

/**
 * Completes a running test with its figures kept: `apply` gives the link the url of `chosen`, or
 * of the winner when none is chosen. Undefined when another instance or request completed it first.
 */
async function complete(ctx: Ctx, links: LinkDeps, test: LinkTestRow, apply: boolean, chosen?: number): Promise<LinkTestRow | undefined> {
  const figures = await figuresOf(ctx, test, true);
  const winner = chosen ?? winnerOf(figures.variants, test.metric, test.currency);
  return completeLinkTest({ ctx, deps: links, input: { testId: test.id, winner, apply, results: figures } });
}

/** POST /api/links/{id}/test/complete: ends the running test now and applies `variant`, or the winner. */
export async function completeLinkTestNow({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: LinkDeps;
  input: { linkId: string; variant?: number };
}): Promise<LinkTestAnswer> {
  const test = await latestLinkTest({ ctx, input: input.linkId });
  if (!test) throw new AppError('link_test_none', { id: input.linkId });
  if (test.status !== 'running') throw new AppError('link_test_not_running', { id: input.linkId });
  if (input.variant !== undefined && input.variant >= test.variants.length) throw invalid('variant', 'variant_index', { limit: test.variants.length - 1 });
  const done = await complete(ctx, deps, test, true, input.variant);
  if (!done) throw new AppError('link_test_not_running', { id: input.linkId });
  return answerOf(done, await figuresOf(ctx, done));
}

/** Due tests completed per statement of the job. */
const BATCH = 100;

/**
 * Completes every test past its end (operations.md §20), with autoApply applying the winner: a
 * maintenance job of every minute, run once per minute across instances. Two instances running
 * it at once still complete each test once (the first to mark it completed wins; the other skips it).
 */
export function testCompletionJob(o: { db: Conn; links: LinkDeps; log: Logger }): MaintenanceJob {
  return {
    name: 'link-tests.completion',
    periodMs: 60_000,
    run: async (now) => {
      const workspaces = new Map<string, Awaited<ReturnType<typeof requireWorkspace>>>();
      const failed = new Set<string>();
      for (;;) {
        const due = (await dueLinkTests({ db: o.db, limit: BATCH + failed.size })).filter((t) => !failed.has(t.id));
        for (const t of due) {
          try {
            let workspace = workspaces.get(t.workspaceId);
            if (!workspace) workspaces.set(t.workspaceId, (workspace = await requireWorkspace({ ctx: { db: o.db, now }, input: { id: t.workspaceId } })));
            await complete({ db: o.db, now, workspace }, o.links, t, t.autoApply);
          } catch (err) {
            // One test that cannot complete (its workspace gone) does not hold up the others; it is tried again next run.
            failed.add(t.id);
            o.log.warn({ err, testId: t.id }, 'an A/B test could not be completed');
          }
        }
        if (due.length < BATCH) return;
      }
    },
  };
}
