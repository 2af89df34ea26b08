import { bulkResource, normalisedHttps } from '../bulk/service.js';
import { partnerStore } from './store.js';

/** Partners delete softly: gone from every read, kept for the history of their links and clicks. */
export const partners = bulkResource({
  store: partnerStore,
  fields: ['name', 'email', 'image'],
  requiredOnInsert: ['name'],
  checkItem: (item, i) => {
    if (item.image !== undefined) item.image = normalisedHttps(item.image, `[${i}].image`, 2048);
  },
});

export const { list: listPartners, create: createPartners, upsert: upsertPartners, remove: deletePartners } = partners;

/** Every partner of the workspace, oldest first, in keyset pages (the NDJSON export reads these). */
export const workspacePartnerPages = partners.pages;

/** The ids among `ids` that are active partners of the workspace (for links). */
export const existingPartners = partners.existing;
