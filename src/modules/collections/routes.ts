import { routesPlugin } from '../../http/types.js';
import type { ResourceDeps } from '../../core/context.js';
import { registerBulkRoutes } from '../../http/bulk-routes.js';
import { Collection, CollectionCreate, CollectionUpsert } from './schemas.js';
import { collections } from './service.js';

export const collectionRoutes = routesPlugin<ResourceDeps>('collections', (app, deps) => {
  registerBulkRoutes(app, deps, {
    path: '/api/collections',
    tag: 'Collections',
    readScope: 'collectionsRead',
    writeScope: 'collectionsWrite',
    record: Collection,
    createItem: CollectionCreate,
    upsertItem: CollectionUpsert,
    deleteNote: 'Soft delete: the collections disappear from GET and stay in history.',
    service: collections,
  });
});
