import type { App, AppDeps } from '../../http/app.js';
import { registerBulkRoutes } from '../../http/bulk-routes.js';
import { Partner, PartnerCreate, PartnerUpsert } from './schemas.js';
import { partners } from './service.js';

export function registerPartnerRoutes(app: App, deps: AppDeps): void {
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
}
