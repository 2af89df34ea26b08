import type { Ctx } from '../../core/context.js';
import { bulkResource } from '../bulk/service.js';
import { collectionStore, collectionsNamed } from './store.js';

/** Collections delete softly: gone from every read, kept for the history of their links. */
export const collections = bulkResource({
  store: collectionStore,
  fields: ['name', 'description'],
  requiredOnInsert: ['name'],
});

export const { list: listCollections, create: createCollections, upsert: upsertCollections, remove: deleteCollections } = collections;

/** Every collection of the workspace, oldest first, in keyset pages (the NDJSON export reads these). */
export const workspaceCollectionPages = collections.pages;

/** The ids among `ids` that are active collections of the workspace (for links). */
export const existingCollections = collections.existing;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Collections named by a name (ignoring case; the oldest of a name wins) or by an id: each
 * reference as given → the collection's id, for those that exist.
 */
export async function collectionIdsByReference({ ctx, input }: { ctx: Ctx; input: string[] }): Promise<Map<string, string>> {
  const ids = input.filter((r) => UUID.test(r)).map((r) => r.toLowerCase());
  const found = await collectionsNamed(ctx.db, ctx.workspace.id, [...new Set(input.map((r) => r.toLowerCase()))], ids);
  const byName = new Map<string, string>();
  for (const f of found) if (!byName.has(f.key)) byName.set(f.key, f.id);
  const byId = new Set(found.map((f) => f.id));
  const out = new Map<string, string>();
  for (const ref of input) {
    const id = byId.has(ref.toLowerCase()) ? ref.toLowerCase() : byName.get(ref.toLowerCase());
    if (id) out.set(ref, id);
  }
  return out;
}
