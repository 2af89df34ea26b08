import { routesPlugin } from '../../http/types.js';
import type { ResourceDeps } from '../bulk/context.js';
import { registerBulkRoutes } from '../bulk/routes.js';
import type { Item } from '../bulk/service.js';
import { Link, LinkCreate, LinkListQuery, LinkUpsert } from './schemas.js';
import { createLinks, deleteLinks, listLinks, upsertLinks, type LinkDeps, type LinkListQuery as Query } from './service.js';

export const linkRoutes = routesPlugin<ResourceDeps & { links: LinkDeps }>('links', (app, { links, ...deps }) => {
  registerBulkRoutes<Query>(app, deps, {
    path: '/api/links',
    tag: 'Links',
    readScope: 'linksRead',
    writeScope: 'linksWrite',
    record: Link,
    createItem: LinkCreate,
    upsertItem: LinkUpsert,
    listQuery: LinkListQuery,
    deleteNote: 'Soft delete: the links disappear from GET and their short links stop resolving; clicks and conversions stay.',
    service: {
      list: (ctx, q) => listLinks(ctx, links, q),
      create: (ctx, items: Item[]) => createLinks(ctx, links, items),
      upsert: (ctx, items: Item[]) => upsertLinks(ctx, links, items),
      remove: (ctx, ids) => deleteLinks(ctx, links, ids),
    },
  });
});
