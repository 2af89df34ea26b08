import type { ModuleRegistration } from './wiring.js';
import { accountModule, accountWorkspacesModule } from './modules/account/module.js';
import { adminModule } from './modules/admin/module.js';
import { analyticsModule } from './modules/analytics/module.js';
import { auditModule } from './modules/audit/module.js';
import { authModule } from './modules/auth/module.js';
import { clicksModule } from './modules/clicks/module.js';
import { collectionsModule } from './modules/collections/module.js';
import { conversionsModule } from './modules/conversions/module.js';
import { clientTrackingModule } from './modules/client-tracking/module.js';
import { trackingModule } from './modules/tracking/module.js';
import { customersModule } from './modules/customers/module.js';
import { dashboardModule } from './modules/dashboard/module.js';
import { domainsModule } from './modules/domains/module.js';
import { eventsModule } from './modules/events/module.js';
import { exportModule } from './modules/export/module.js';
import { importsModule } from './modules/imports/module.js';
import { invitesModule } from './modules/invites/module.js';
import { keysModule } from './modules/keys/module.js';
import { linksModule } from './modules/links/module.js';
import { linkTestsModule } from './modules/link-tests/module.js';
import { mailModule } from './modules/mail/module.js';
import { mfaModule } from './modules/mfa/module.js';
import { oauthAppsModule } from './modules/oauth-apps/module.js';
import { oauthModule } from './modules/oauth/module.js';
import { partnerLinksModule } from './modules/partner-links/module.js';
import { partnersModule } from './modules/partners/module.js';
import { passkeysModule } from './modules/passkeys/module.js';
import { programModule } from './modules/program/module.js';
import { commissionsModule } from './modules/commissions/module.js';
import { payoutsModule } from './modules/payouts/module.js';
import { partnerInvitesModule } from './modules/partner-invites/module.js';
import { partnerPortalModule } from './modules/partner-portal/module.js';
import { partnerApplicationsModule } from './modules/partner-applications/module.js';
import { embedReferralsModule } from './modules/embed-referrals/module.js';
import { passwordResetModule } from './modules/password-reset/module.js';
import { qrModule } from './modules/qr/module.js';
import { redirectModule } from './modules/redirect/module.js';
import { sessionsModule } from './modules/sessions/module.js';
import { ssoModule } from './modules/sso/module.js';
import { stripeModule } from './modules/stripe/module.js';
import { tagsModule } from './modules/tags/module.js';
import { tokensModule } from './modules/tokens/module.js';
import { utmTemplatesModule } from './modules/utm-templates/module.js';
import { webhooksModule } from './modules/webhooks/module.js';

/**
 * Every capability, in the order its routes are registered (and the OpenAPI document lists them):
 * audit first, since its hooks write the entry of every route registered after it. The same order
 * starts the workers and runs the maintenance jobs; the operator routes follow all the others.
 * Adding a module is its own module.ts and one line here.
 */
export const MODULES: readonly ModuleRegistration[] = [
  auditModule,
  qrModule,
  collectionsModule,
  tagsModule,
  utmTemplatesModule,
  partnersModule,
  programModule,
  commissionsModule,
  payoutsModule,
  partnerInvitesModule,
  partnerPortalModule,
  partnerApplicationsModule,
  embedReferralsModule,
  linksModule,
  linkTestsModule,
  partnerLinksModule,
  customersModule,
  conversionsModule,
  trackingModule,
  clientTrackingModule,
  analyticsModule,
  eventsModule,
  exportModule,
  webhooksModule,
  stripeModule,
  importsModule,
  domainsModule,
  authModule,
  mfaModule,
  passkeysModule,
  ssoModule,
  passwordResetModule,
  accountModule,
  sessionsModule,
  tokensModule,
  accountWorkspacesModule,
  invitesModule,
  keysModule,
  oauthAppsModule,
  oauthModule,
  dashboardModule,
  redirectModule,
  clicksModule,
  mailModule,
  adminModule,
];
