import type { Scope } from './scopes.js';

/** What each scope allows (api.md "Authentication" 5), in words for /docs and `linktrail --help`. */
export const SCOPE_GUIDE: Record<Scope, string> = {
  linksRead: 'list and read links (GET /api/links)',
  linksWrite: 'create, update and delete links (POST, PUT, DELETE /api/links)',
  collectionsRead: 'list collections (GET /api/collections)',
  collectionsWrite: 'create, update and delete collections (POST, PUT, DELETE /api/collections)',
  tagsRead: 'list tags (GET /api/tags)',
  tagsWrite: 'create, update and delete tags (POST, PUT, DELETE /api/tags)',
  analyticsRead: 'read click, lead and sale analytics (GET /api/analytics)',
  conversionsWrite: 'record leads and sales (POST /api/track/lead, POST /api/track/sale)',
  customersRead: 'list customers (GET /api/customers)',
  customersWrite: 'update and delete customers (PUT, DELETE /api/customers)',
  partnersRead: 'list partners (GET /api/partners)',
  partnersWrite: 'create, update and delete partners (POST, PUT, DELETE /api/partners)',
};
