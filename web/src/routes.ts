import type { ComponentType } from 'preact';
import { lazyPage } from './lazy.js';
import type { Me, PageProps } from './session.js';

type Page = ComponentType<PageProps> & { preload(): void };
const page = (load: () => Promise<ComponentType<PageProps>>): Page => lazyPage(load);

/** Each page is its own chunk. A pattern's `:name` segments become params; the first pattern that matches wins (/links/import before /links/:id). */
const ROUTES: [pattern: string, page: Page][] = [
  ['/', page(() => import('./pages/overview.js').then((m) => m.Overview))],
  ['/links', page(() => import('./pages/links/index.js').then((m) => m.LinksPage))],
  ['/links/import', page(() => import('./pages/imports/index.js').then((m) => m.ImportPage))],
  ['/links/:id', page(() => import('./pages/link/index.js').then((m) => m.LinkPage))],
  ['/collections', page(() => import('./pages/library/index.js').then((m) => m.CollectionsPage))],
  ['/tags', page(() => import('./pages/library/index.js').then((m) => m.TagsPage))],
  ['/partners', page(() => import('./pages/library/index.js').then((m) => m.PartnersPage))],
  ['/analytics', page(() => import('./pages/analytics/index.js').then((m) => m.AnalyticsPage))],
  ['/conversions', page(() => import('./pages/conversions/index.js').then((m) => m.ConversionsPage))],
  ['/program', page(() => import('./pages/program/index.js').then((m) => m.ProgramPage))],
  ['/program/partners', page(() => import('./pages/program/index.js').then((m) => m.PartnersPage))],
  ['/program/groups', page(() => import('./pages/program/index.js').then((m) => m.GroupsPage))],
  ['/program/commissions', page(() => import('./pages/program/index.js').then((m) => m.CommissionsPage))],
  ['/program/payouts', page(() => import('./pages/program/index.js').then((m) => m.PayoutsPage))],
  ['/program/applications', page(() => import('./pages/program/index.js').then((m) => m.ApplicationsPage))],
  ['/settings', page(() => import('./pages/settings/index.js').then((m) => m.GeneralSettings))],
  ['/settings/members', page(() => import('./pages/settings/index.js').then((m) => m.MembersSettings))],
  ['/settings/keys', page(() => import('./pages/settings/index.js').then((m) => m.KeysSettings))],
  ['/settings/apps', page(() => import('./pages/settings/index.js').then((m) => m.OAuthAppsSettings))],
  ['/settings/connected', page(() => import('./pages/settings/index.js').then((m) => m.ConnectedAppsSettings))],
  ['/settings/webhooks', page(() => import('./pages/webhooks/index.js').then((m) => m.WebhooksPage))],
  ['/settings/webhooks/:id', page(() => import('./pages/webhooks/index.js').then((m) => m.WebhookPage))],
  ['/settings/integrations', page(() => import('./pages/integrations/index.js').then((m) => m.IntegrationsPage))],
  ['/settings/domains', page(() => import('./pages/domains/index.js').then((m) => m.DomainsPage))],
  ['/settings/audit-log', page(() => import('./pages/settings/audit-log.js').then((m) => m.AuditLogSettings))],
  ['/settings/sso', page(() => import('./pages/settings/sso.js').then((m) => m.SsoSettings))],
  ['/settings/tracking', page(() => import('./pages/settings/tracking.js').then((m) => m.TrackingSettings))],
  ['/account', page(() => import('./pages/account/index.js').then((m) => m.AccountPage))],
  ['/account/security', page(() => import('./pages/account/security.js').then((m) => m.SecurityPage))],
];

/**
 * Pages outside the signed-in frame (no navigation; the app renders them for a signed-in
 * person only): the OAuth consent, reached from GET /oauth/authorize.
 */
export const CONSENT_PATH = '/oauth/consent';
export const ConsentPage = lazyPage<{ me: Me }>(() => import('./pages/consent/index.js').then((m) => m.ConsentPage));

/** The page for a path and its parameters, or undefined (not found). */
export function matchRoute(path: string): { page: Page; params: Record<string, string>; pattern: string } | undefined {
  const parts = path.split('/');
  for (const [pattern, page] of ROUTES) {
    const want = pattern.split('/');
    if (want.length !== parts.length) continue;
    const params: Record<string, string> = {};
    if (want.every((w, i) => (w.startsWith(':') ? ((params[w.slice(1)] = decodeURIComponent(parts[i]!)), parts[i] !== '') : w === parts[i])))
      return { page, params, pattern };
  }
  return undefined;
}

/** Sub-navigation of a section: the links area, the settings area, the account, the partner program. */
export const SECTIONS = [
  [
    ['/links', 'links'],
    ['/collections', 'collections'],
    ['/tags', 'tags'],
    ['/partners', 'partners'],
    ['/links/import', 'import'],
  ],
  [
    ['/settings', 'general'],
    ['/settings/members', 'members'],
    ['/settings/keys', 'apiKeys'],
    ['/settings/apps', 'oauthApps'],
    ['/settings/connected', 'connectedApps'],
    ['/settings/webhooks', 'webhooks'],
    ['/settings/integrations', 'integrations'],
    ['/settings/domains', 'domains'],
    ['/settings/tracking', 'tracking'],
    ['/settings/audit-log', 'auditLog'],
    ['/settings/sso', 'sso'],
  ],
  [
    ['/account', 'account'],
    ['/account/security', 'security'],
  ],
  [
    ['/program', 'programHome'],
    ['/program/partners', 'programPartners'],
    ['/program/groups', 'partnerGroups'],
    ['/program/commissions', 'commissions'],
    ['/program/payouts', 'payouts'],
    ['/program/applications', 'applications'],
  ],
] as const;
