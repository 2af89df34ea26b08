/**
 * The audit log's actions (operations.md §15), a stable list: each mutating workspace route
 * (and each operator's route that changes one workspace) and the one action its entries carry. test/modules/audit/every-route.test.ts fails when a
 * mutating workspace route is neither here nor in NOT_AUDITED. Sign-ins are
 * `sign_in.<method>.<outcome>` (signInAction).
 */
export const ROUTE_ACTIONS: Readonly<Record<string, string>> = {
  'POST /api/links': 'links.created',
  'PUT /api/links': 'links.upserted',
  'DELETE /api/links': 'links.deleted',
  'POST /api/links/:id/test/complete': 'link_test.completed',
  'POST /api/collections': 'collections.created',
  'PUT /api/collections': 'collections.upserted',
  'DELETE /api/collections': 'collections.deleted',
  'POST /api/tags': 'tags.created',
  'PUT /api/tags': 'tags.upserted',
  'DELETE /api/tags': 'tags.deleted',
  'POST /api/partners': 'partners.created',
  'PUT /api/partners': 'partners.upserted',
  'DELETE /api/partners': 'partners.deleted',
  'PUT /api/customers': 'customers.updated',
  'DELETE /api/customers': 'customers.deleted',
  'PUT /api/program': 'program.updated',
  'PUT /api/tracking': 'tracking.updated',
  'POST /api/tracking/rotate': 'tracking.key_rotated',
  'POST /api/partner-groups': 'partner_groups.created',
  'PUT /api/partner-groups': 'partner_groups.upserted',
  'DELETE /api/partner-groups': 'partner_groups.deleted',
  'POST /api/commissions': 'commissions.created',
  'PATCH /api/commissions': 'commissions.updated',
  'POST /api/payouts': 'payout.created',
  'POST /api/partner-invites': 'partner_invites.created',
  'POST /api/embed-tokens': 'embed_token.created',
  'POST /api/payouts/:id/complete': 'payout.completed',
  'POST /api/payouts/:id/cancel': 'payout.cancelled',
  'POST /api/domains': 'domain.created',
  'PATCH /api/domains/:id': 'domain.updated',
  'DELETE /api/domains/:id': 'domain.deleted',
  'POST /api/domains/:id/verify': 'domain.verification_checked',
  'POST /api/imports': 'import.started',
  'POST /api/integrations/stripe': 'stripe.connected',
  'PUT /api/integrations/stripe': 'stripe.updated',
  'DELETE /api/integrations/stripe': 'stripe.disconnected',
  'POST /api/qr-logos': 'qr_logo.created',
  'DELETE /api/qr-logos/:id': 'qr_logo.deleted',
  'POST /api/utm-templates': 'utm_template.created',
  'PATCH /api/utm-templates/:id': 'utm_template.updated',
  'DELETE /api/utm-templates/:id': 'utm_template.deleted',
  'POST /api/webhooks': 'webhook.created',
  'PATCH /api/webhooks/:id': 'webhook.updated',
  'DELETE /api/webhooks/:id': 'webhook.deleted',
  'POST /api/webhooks/:id/secret': 'webhook.secret_rotated',
  'POST /api/webhooks/:id/recover': 'webhook.recovered',
  'POST /api/webhooks/:id/test': 'webhook.tested',
  'POST /api/webhooks/:id/deliveries/:deliveryId/retry': 'webhook.delivery_retried',
  'PATCH /api/workspaces/:id': 'workspace.updated',
  'POST /api/workspaces/:id/keys': 'key.created',
  'DELETE /api/workspaces/:id/keys/:keyId': 'key.revoked',
  'POST /api/workspaces/:id/invites': 'invite.created',
  'DELETE /api/workspaces/:id/invites/:inviteId': 'invite.revoked',
  'PATCH /api/workspaces/:id/members/:userId': 'member.role_changed',
  'DELETE /api/workspaces/:id/members/:userId': 'member.removed',
  'POST /api/workspaces/:id/oauth-apps': 'oauth_app.created',
  'PATCH /api/workspaces/:id/oauth-apps/:appId': 'oauth_app.updated',
  'DELETE /api/workspaces/:id/oauth-apps/:appId': 'oauth_app.deleted',
  'POST /api/workspaces/:id/oauth-apps/:appId/secret': 'oauth_app.secret_rotated',
  'DELETE /api/workspaces/:id/authorizations/:grantId': 'oauth_grant.revoked',
  // Owner routes naming their workspace in X-Workspace-Id (session only).
  'PUT /api/sso': 'sso.configured',
  'DELETE /api/sso': 'sso.removed',
  'POST /api/sso/domains/:domain/verify': 'sso.domain_verification_checked',
  // The operator's API (ADMIN_TOKEN), in the log of the workspace it changes, actor `operator`.
  'PATCH /admin/workspaces/:id': 'workspace.updated',
  'POST /admin/workspaces/:id/keys': 'key.created',
  'DELETE /admin/keys/:id': 'key.revoked',
  'POST /admin/workspaces/:id/members': 'member.added',
  'POST /admin/domains/:id/verify': 'domain.verified',
  'DELETE /admin/domains/:id': 'domain.deleted',
  'POST /admin/workspaces/:id/sso/domains/:domain/verify': 'sso.domain_verified',
  'POST /admin/workspaces/:workspaceId/imports': 'import.started',
};

/**
 * Entries services write themselves (core/audit.ts recordAudit): POST /api/invites/accept and
 * /api/partner-invites/accept, in the invitation's workspace; an application to the partner
 * program (POST /api/apply/{slug} and its page's form), in the program's; the partner portal's
 * writes, in the workspace of the program the partner acts in; a payouts invitation an embedded
 * referral page asks for, under whoever issued its token.
 */
export const SERVICE_ACTIONS = [
  'member.joined',
  'partner.joined',
  'partner.applied',
  'partner_link.created',
  'partner.payout_details_changed',
  'partner_invite.requested',
] as const;

/**
 * Mutating routes of a workspace that write no entry, and why: conversion tracking is not an
 * entry (§15), and an import preview changes nothing.
 */
export const NOT_AUDITED: ReadonlySet<string> = new Set([
  'POST /api/track/lead',
  'POST /api/track/sale',
  'POST /api/track/refund',
  'POST /api/imports/preview',
]);

export type SignInMethod = 'password' | 'totp' | 'recovery_code' | 'passkey' | 'sso';
export type SignInOutcome = 'succeeded' | 'failed' | 'second_factor_required';

export const signInAction = (method: SignInMethod, outcome: SignInOutcome) => `sign_in.${method}.${outcome}`;

/** Every action an entry may carry, for the documentation and the dashboard's filter. */
export function knownActions(): string[] {
  const methods: SignInMethod[] = ['password', 'totp', 'recovery_code', 'passkey', 'sso'];
  const outcomes: SignInOutcome[] = ['succeeded', 'failed', 'second_factor_required'];
  return [...new Set(Object.values(ROUTE_ACTIONS)), ...SERVICE_ACTIONS, ...methods.flatMap((m) => outcomes.map((o) => signInAction(m, o)))];
}
