import type { Ctx } from '../../core/context.js';
import { collectionIdsByReference, createCollections } from '../collections/service.js';
import { createTags, existingTags, tagIdsByName } from '../tags/service.js';

/**
 * Names, not ids (operations.md §13): collections and tags are found by name ignoring case, or
 * created; a collection may also be given by its id. What is created is created in chunks of
 * the plan's items per bulk request, in the batch's transaction.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
}

/** Each first spelling of a name (ignoring case), in order. */
function distinctNames(names: string[]): string[] {
  const seen = new Map<string, string>();
  for (const n of names) if (!seen.has(n.toLowerCase())) seen.set(n.toLowerCase(), n);
  return [...seen.values()];
}

/**
 * Collection references → ids; names that exist nowhere are created. An id-shaped reference
 * that is no collection of the workspace is left out (the row fails naming it).
 */
export async function collectionIds(ctx: Ctx, refs: string[]): Promise<Map<string, string>> {
  const found = await collectionIdsByReference({ ctx, input: [...new Set(refs)] });
  const missing = distinctNames(refs.filter((r) => !found.has(r) && !UUID.test(r)));
  for (const chunk of chunks(missing, ctx.workspace.maxBulkItems)) {
    const created = await createCollections({ ctx, input: chunk.map((name) => ({ name })) });
    created.forEach((c) => found.set(c.name, c.id));
  }
  const byLower = new Map([...found].map(([ref, id]) => [ref.toLowerCase(), id]));
  return new Map(refs.map((r) => [r, found.get(r) ?? byLower.get(r.toLowerCase())]).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Tags named by one of the workspace's tag ids (a file exported here names them so): lower-cased id → id. */
async function tagsById(ctx: Ctx, names: string[]): Promise<Map<string, string>> {
  const ids = [...new Set(names.filter((n) => UUID.test(n)).map((n) => n.toLowerCase()))];
  return new Map([...(await existingTags({ ctx, input: ids }))].map((id) => [id, id]));
}

/** Tag names → ids (by lower-cased name, or a tag's own id); the missing ones are created. */
export async function tagIds(ctx: Ctx, names: string[]): Promise<Map<string, string>> {
  const found = new Map([...(await tagIdsByName({ ctx, input: names })), ...(await tagsById(ctx, names))]);
  const missing = distinctNames(names.filter((n) => !found.has(n.toLowerCase())));
  for (const chunk of chunks(missing, ctx.workspace.maxBulkItems)) {
    const created = await createTags({ ctx, input: chunk.map((name) => ({ name })) });
    created.forEach((t) => found.set(t.name.toLowerCase(), t.id));
  }
  return found;
}

/** Whether the workspace lacks any of these collections or tags (so creating them needs its scope). */
export async function missingNames(ctx: Ctx, o: { collections: string[]; tags: string[] }): Promise<{ collections: boolean; tags: boolean }> {
  const collections = await collectionIdsByReference({ ctx, input: [...new Set(o.collections)] });
  const tags = new Map([...(await tagIdsByName({ ctx, input: o.tags })), ...(await tagsById(ctx, o.tags))]);
  return {
    collections: o.collections.some((c) => !collections.has(c) && !UUID.test(c)),
    tags: o.tags.some((t) => !tags.has(t.toLowerCase())),
  };
}
