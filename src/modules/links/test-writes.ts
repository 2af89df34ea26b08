import type { Tx } from '../../db/connect.js';
import { newId } from '../../db/ids.js';
import type { LinkInput } from './rules.js';
import { checkTestWindow, sameVariants, type StoredTest, type TestInput } from './test-rules.js';
import { endTestsWithoutWinner, insertTests, updateRunningTests } from './test-store.js';

/** What a link write does to tests (operations.md §20), worked out before it writes. */
export interface TestWrites {
  start: (StoredTest & { linkId: string })[];
  update: StoredTest[];
  /** Running tests ended without a winner: dropped (`test: null`) or replaced (other variants). */
  end: string[];
}

/**
 * The tests of a write's items (each with its link id, inserts' already chosen): a test on a new
 * link starts; on an update, null ends the running one without a winner, other variants end it
 * and start a new one (a new id), the same variants keep it (its end, metric, currency and
 * autoApply may change). A new or moved end must be after now and at most 90 days ahead. Each
 * item's `test` becomes the value the link stores (with its id), or is dropped when nothing changes.
 */
export function planTestWrites(
  items: { index: number; id: string; fields: LinkInput; update: boolean }[],
  current: (linkId: string) => StoredTest | null,
  now: Date,
): TestWrites {
  const out: TestWrites = { start: [], update: [], end: [] };
  for (const item of items) {
    const asked = item.fields.test as TestInput | null | undefined;
    if (asked === undefined) continue;
    const running = item.update ? current(item.id) : null;
    const endsAt = `[${item.index}].test.endsAt`;
    if (asked === null) {
      if (running) out.end.push(running.id);
      else delete item.fields.test;
      continue;
    }
    if (running && sameVariants(running.variants, asked.variants)) {
      const kept: StoredTest = { ...asked, id: running.id };
      if (kept.endsAt !== running.endsAt) checkTestWindow(kept.endsAt, now, endsAt);
      if (kept.endsAt === running.endsAt && kept.metric === running.metric && kept.currency === running.currency && kept.autoApply === running.autoApply) {
        delete item.fields.test;
        continue;
      }
      out.update.push(kept);
      item.fields.test = kept;
      continue;
    }
    checkTestWindow(asked.endsAt, now, endsAt);
    if (running) out.end.push(running.id);
    const started: StoredTest = { ...asked, id: newId() };
    out.start.push({ ...started, linkId: item.id });
    item.fields.test = started;
  }
  return out;
}

/** Writes the history of a link write's tests, after its links are written (a new test names its link). */
export async function writeTests(tx: Tx, workspaceId: string, w: TestWrites, now: Date): Promise<void> {
  await endTestsWithoutWinner(tx, workspaceId, w.end, now);
  await updateRunningTests(tx, workspaceId, w.update);
  await insertTests(tx, workspaceId, w.start, now);
}
