import type { Scope } from './scopes.js';

/** The endpoints each scope opens (api.md "Authentication" 5); the dashboard reads them from GET /api/me. */
export const SCOPE_ENDPOINTS: Record<Scope, string> = {
  linksRead: 'GET /api/links',
  linksWrite: 'POST, PUT, DELETE /api/links',
  collectionsRead: 'GET /api/collections',
  collectionsWrite: 'POST, PUT, DELETE /api/collections',
  tagsRead: 'GET /api/tags',
  tagsWrite: 'POST, PUT, DELETE /api/tags',
  analyticsRead: 'GET /api/analytics',
  conversionsWrite: 'POST /api/track/lead, POST /api/track/sale',
  customersRead: 'GET /api/customers',
  customersWrite: 'PUT, DELETE /api/customers',
  partnersRead: 'GET /api/partners',
  partnersWrite: 'POST, PUT, DELETE /api/partners',
  webhooksRead: 'GET /api/webhooks, GET /api/webhooks/{id}/deliveries',
  webhooksWrite: 'POST, PATCH, DELETE /api/webhooks and its secret, test, recover and retry actions',
  programsRead: 'GET /api/program, /api/partner-groups, /api/commissions, /api/payouts',
  programsWrite: 'PUT /api/program; POST, PUT, DELETE /api/partner-groups; POST, PATCH /api/commissions; POST /api/payouts and its actions',
};

const WORDS: Record<Scope, string> = {
  linksRead: 'list and read links',
  linksWrite: 'create, update and delete links',
  collectionsRead: 'list collections',
  collectionsWrite: 'create, update and delete collections',
  tagsRead: 'list tags',
  tagsWrite: 'create, update and delete tags',
  analyticsRead: 'read click, lead and sale analytics',
  conversionsWrite: 'record leads and sales',
  customersRead: 'list customers',
  customersWrite: 'update and delete customers',
  partnersRead: 'list partners',
  partnersWrite: 'create, update and delete partners',
  webhooksRead: 'list webhook endpoints and their deliveries',
  webhooksWrite: 'register, change and remove webhook endpoints, roll their secrets, send tests and retries',
  programsRead: 'read the partner program, its groups and rewards, commissions and payouts (payout destinations masked)',
  programsWrite:
    "change the partner program, its groups and rewards, partners' standing, commissions and payouts (the money routes also need an owner when acting for a person)",
};

/** What each scope allows, in words for /docs and `linktrail --help`. */
export const SCOPE_GUIDE = Object.fromEntries(Object.entries(WORDS).map(([s, words]) => [s, `${words} (${SCOPE_ENDPOINTS[s as Scope]})`])) as Record<
  Scope,
  string
>;
