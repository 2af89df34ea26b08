import { routesPlugin } from '../../http/types.js';
import type { ResourceDeps } from '../../core/context.js';
import { registerBulkRoutes } from '../../http/bulk-routes.js';
import { Tag, TagCreate, TagUpsert } from './schemas.js';
import { tags } from './service.js';

export const tagRoutes = routesPlugin<ResourceDeps>('tags', (app, deps) => {
  registerBulkRoutes(app, deps, {
    path: '/api/tags',
    tag: 'Tags',
    readScope: 'tagsRead',
    writeScope: 'tagsWrite',
    record: Tag,
    createItem: TagCreate,
    upsertItem: TagUpsert,
    deleteNote: 'Permanent delete: the tags are removed from every link in the same transaction.',
    service: tags,
  });
});
