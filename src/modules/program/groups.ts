/**
 * Partner groups and their rewards (operations.md §18 "Groups and rewards"): array routes, atomic,
 * naming the failing index. The group `default` always exists, is never deleted nor renamed;
 * deleting a group moves its partners to it.
 */
import { audit } from '../../core/audit.js';
import type { Ctx } from '../../core/context.js';
import { AppError, invalid } from '../../core/errors.js';
import { uniqueConstraintOf, withTransaction } from '../../core/transaction.js';
import { newId } from '../../db/ids.js';
import { assertAllFound, assertBulkSize, assertDistinct } from '../bulk/service.js';
import { deleteGroupRows, listGroupRows, lockGroups, writeGroups, type GroupRow } from './groups-store.js';
import type { Reward } from './reward-schema.js';
import { checkRewards } from './rewards.js';
import { programRow } from './store.js';

export type { GroupRow } from './groups-store.js';

export interface GroupItem {
  id?: string;
  name?: string;
  rewards?: Reward[];
}

export function listGroups({ ctx }: { ctx: Ctx }): Promise<GroupRow[]> {
  return listGroupRows(ctx.db, ctx.workspace.id);
}

function checkItem(item: GroupItem, i: number): void {
  if (item.name !== undefined) {
    item.name = item.name.trim();
    if (!item.name) throw invalid(`[${i}].name`, 'required');
  }
  if (item.rewards) checkRewards(item.rewards, `[${i}].rewards`);
}

/** Two groups of one name (ignoring case), in the request or against a stored one: 409 naming it. */
async function uniqueNames<T>(items: GroupItem[], write: () => Promise<T>): Promise<T> {
  assertDistinct(
    items.map((g) => g.name),
    (i) => `[${i}].name`,
    (n) => n.toLowerCase(),
  );
  try {
    return await write();
  } catch (err) {
    if (uniqueConstraintOf(err) === 'partner_groups_name') throw new AppError('group_name_taken', { field: 'name', name: items.map((g) => g.name).join(', ') });
    throw err;
  }
}

/** POST (all new) and PUT (an id updates that group, none creates one) of /api/partner-groups. */
export async function writePartnerGroups({ ctx, input, mode }: { ctx: Ctx; input: GroupItem[]; mode: 'create' | 'upsert' }): Promise<GroupRow[]> {
  assertBulkSize(ctx.workspace, input.length);
  input.forEach((item, i) => {
    if (mode === 'create' || item.id === undefined) {
      if (item.name === undefined) throw invalid(`[${i}].name`, 'required');
    } else if (item.name === undefined && item.rewards === undefined) throw invalid(`[${i}]`, 'nothing_to_update');
    checkItem(item, i);
  });
  const ids = input.map((g) => (mode === 'upsert' ? g.id?.toLowerCase() : undefined));
  assertDistinct(ids, (i) => `[${i}].id`);
  return uniqueNames(input, () =>
    withTransaction(ctx.db, async (tx) => {
      if (!(await programRow(tx, ctx.workspace.id))) throw new AppError('program_required');
      const updating = ids.filter((id): id is string => id !== undefined);
      const found = new Map((await lockGroups(tx, ctx.workspace.id, updating)).map((g) => [g.id, g]));
      assertAllFound(ids, new Set(found.keys()));
      input.forEach((item, i) => {
        const current = ids[i] && found.get(ids[i]!);
        if (current && current.isDefault && item.name !== undefined && item.name !== current.name)
          throw new AppError('default_group', { field: `[${i}].name` });
      });
      const inserts = input.flatMap((g, i) => (ids[i] ? [] : [{ index: i, id: newId(), name: g.name!, rewards: g.rewards ?? [] }]));
      const updates = input.flatMap((g, i) => (ids[i] ? [{ index: i, id: ids[i]!, name: g.name, rewards: g.rewards }] : []));
      const written = new Map((await writeGroups(tx, ctx.workspace.id, inserts, updates)).map((g) => [g.id, g]));
      const out = input.map((_, i) => written.get(ids[i] ?? inserts.find((x) => x.index === i)!.id)!);
      await audit(ctx, tx, { ids: out.map((g) => g.id), counts: { created: inserts.length, updated: updates.length } });
      return out;
    }),
  );
}

/** DELETE /api/partner-groups: their partners move to `default`; deleting `default` is 400 default_group. */
export async function deletePartnerGroups({ ctx, input }: { ctx: Ctx; input: string[] }): Promise<string[]> {
  assertBulkSize(ctx.workspace, input.length);
  const ids = input.map((id) => id.toLowerCase());
  assertDistinct(ids, (i) => `[${i}]`);
  return withTransaction(ctx.db, async (tx) => {
    const found = new Map((await lockGroups(tx, ctx.workspace.id, ids)).map((g) => [g.id, g]));
    assertAllFound(ids, new Set(found.keys()), (i) => `[${i}]`);
    ids.forEach((id, i) => {
      if (found.get(id)!.isDefault) throw new AppError('default_group', { field: `[${i}]` });
    });
    await deleteGroupRows(tx, ctx.workspace.id, ids);
    await audit(ctx, tx, { ids, counts: { deleted: ids.length } });
    return ids;
  });
}
