import type { Ctx } from '../../core/context.js';
import { invalid } from '../../core/errors.js';
import { assertDistinct, bulkResource, type Indexed } from '../bulk/service.js';
import { releaseTagNames, tagStore, tagsNamed } from './store.js';

const lower = (s: string) => s.toLowerCase();

/**
 * Tag names are unique in a workspace ignoring case. A name may be taken over from a tag that
 * the same request renames; anything else already holding it is a 400 naming the item.
 */
async function checkNames(
  tx: Parameters<NonNullable<Parameters<typeof bulkResource>[0]['checkWrite']>>[0],
  workspaceId: string,
  writes: Indexed[],
): Promise<void> {
  const named = writes.filter((w) => typeof w.item.name === 'string');
  const names = named.map((w) => lower(w.item.name as string));
  const byIndex = new Map<number, string>();
  named.forEach((w, k) => byIndex.set(w.index, names[k]!));
  assertDistinct(
    writes.map((w) => byIndex.get(w.index)),
    (k) => `[${writes[k]!.index}].name`,
  );
  const renamedAway = new Set(named.map((w) => w.item.id as string));
  for (const holder of await tagsNamed(tx, workspaceId, [...new Set(names)])) {
    const w = named.find((n) => lower(n.item.name as string) === holder.key)!;
    if (w.item.id !== holder.id && !renamedAway.has(holder.id)) throw invalid(`[${w.index}].name`, 'already_exists');
  }
}

export const tags = bulkResource({
  store: tagStore,
  fields: ['name', 'color'],
  requiredOnInsert: ['name'],
  uniqueField: 'name',
  releaseUnique: releaseTagNames,
  checkWrite: (tx, ctx, { inserts, updates }) =>
    checkNames(
      tx,
      ctx.workspace.id,
      [...inserts, ...updates].sort((a, b) => a.index - b.index),
    ),
});

export const { list: listTags, create: createTags, upsert: upsertTags, remove: deleteTags } = tags;

/** Every tag of the workspace, oldest first, in keyset pages (the NDJSON export reads these). */
export const workspaceTagPages = tags.pages;

/** The ids among `ids` that are tags of the workspace (for links). */
export const existingTags = tags.existing;

/** The workspace's tags by name ignoring case: lower-cased name → id. */
export async function tagIdsByName({ ctx, input }: { ctx: Ctx; input: string[] }): Promise<Map<string, string>> {
  const found = await tagsNamed(ctx.db, ctx.workspace.id, [...new Set(input.map(lower))]);
  return new Map(found.map((t) => [t.key, t.id]));
}
