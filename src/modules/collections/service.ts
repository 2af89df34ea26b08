import { bulkResource } from '../bulk/service.js';
import { collectionStore } from './store.js';

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
