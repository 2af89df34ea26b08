import { routesPlugin } from '../../http/types.js';
import type { ResourceDeps } from '../../core/context.js';
import { registerBulkRoutes } from '../../http/bulk-routes.js';
import { Partner, PartnerCreate, PartnerUpsert } from './schemas.js';
import { partners } from './service.js';

export const partnerRoutes = routesPlugin<ResourceDeps>('partners', (app, deps) => {
  registerBulkRoutes(app, deps, {
    path: '/api/partners',
    tag: 'Partners',
    readScope: 'partnersRead',
    writeScope: 'partnersWrite',
    record: Partner,
    createItem: PartnerCreate,
    upsertItem: PartnerUpsert,
    deleteNote: 'Soft delete: the partners disappear from GET and stay in history.',
    service: partners,
  });
});
