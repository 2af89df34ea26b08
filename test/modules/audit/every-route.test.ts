import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_ACTIONS } from '../../../src/modules/audit/actions.js';
import { isAuditedRoute } from '../../../src/modules/audit/hook.js';
import { routeTable } from '../../../src/http/server.js';
import { ADMIN_TOKEN, bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { clientWithClick } from '../conversions/helpers.js';
import { fixtureWithFreshHosts } from '../imports/job-helpers.js';
import { connect, grantIdOf, registerApp } from '../oauth/helpers.js';
import { addMember, asSession, createUser, login, sessionHeaders, uniqueEmail, type SignedIn } from '../people/helpers.js';
import { pngImage } from '../qr/helpers.js';
import { SIGNING_SECRET } from '../stripe/helpers.js';
import { PUBLIC_URL, seedDelivery } from '../webhooks/helpers.js';
import { allChanges as changes } from './helpers.js';
import { within } from '../../helpers/wait.js';
import { startTxtServer } from '../domains/dns-server.js';
import { newProvider } from '../sso/helpers.js';
import type { TestProvider } from '../../helpers/oidc-provider.js';

/**
 * operations.md §15: every request that changes a workspace writes exactly one audit entry.
 * Walks every mutating operation of the OpenAPI document: each is either audited (with its
 * action in ROUTE_ACTIONS, and a scenario below that calls it successfully) or in NOT_WORKSPACE
 * with the reason. A route added later without either fails here.
 */
let t: TestApp;
let idp: TestProvider;
let dns: Awaited<ReturnType<typeof startTxtServer>>;

beforeAll(async () => {
  // A real OpenID provider and a TXT responder on 127.0.0.1 for the single sign-on routes.
  [idp, dns] = await Promise.all([newProvider(), startTxtServer()]);
  t = await startTestApp({ env: { SSO_ALLOWED_CIDRS: '127.0.0.1/32', DNS_SERVERS: dns.address } });
});

afterAll(async () => {
  await t?.close();
  await idp?.stop();
  await dns?.close();
});

/** Mutating operations that write no entry of a workspace, and why. */
const NOT_WORKSPACE: Record<string, string> = {
  // Conversion tracking is not an entry (§15); clicks are not either (they are no /api operation).
  'POST /api/track/lead': 'conversion tracking',
  'POST /api/track/sale': 'conversion tracking',
  'POST /api/track/refund': 'conversion tracking (a sale refunded)',
  // Browser tracking (publishable key): conversion tracking and clicks, as the redirect's.
  'POST /api/track/click': 'a click (as a redirect records one)',
  'POST /api/track/lead/client': 'conversion tracking (from a browser)',
  'POST /api/track/sale/client': 'conversion tracking (from a browser)',
  // Reads a file and changes nothing.
  'POST /api/imports/preview': 'changes nothing',
  // A person's own account, before or outside any workspace: sign-ins are recorded by recordSignIn instead.
  'POST /api/auth/login': 'sign-in (recorded as sign_in.password.*)',
  'POST /api/auth/mfa': 'sign-in (recorded as sign_in.totp.* / sign_in.recovery_code.*)',
  'POST /api/auth/sso': 'starts a single sign-on, the confirmation page’s button (the callback records sign_in.sso.*)',
  'POST /api/auth/logout': "a person's own session",
  'POST /api/auth/signup': 'creates an account and its workspace',
  'POST /api/auth/password-reset': "a person's own account",
  'POST /api/auth/password-reset/confirm': "a person's own account",
  'POST /api/setup': 'the first account, before any workspace',
  'PATCH /api/me': "a person's own account",
  'DELETE /api/me/sessions/{id}': "a person's own session",
  'POST /api/me/tokens': "a person's own token (its use is audited under the token)",
  'DELETE /api/me/tokens/{id}': "a person's own token",
  'POST /api/me/mfa/totp': "a person's own second factor",
  'POST /api/me/mfa/totp/confirm': "a person's own second factor",
  'DELETE /api/me/mfa/totp': "a person's own second factor",
  'POST /api/me/mfa/recovery-codes': "a person's own second factor",
  'POST /api/me/passkeys/options': "a person's own second factor",
  'POST /api/me/passkeys': "a person's own second factor",
  'DELETE /api/me/passkeys/{id}': "a person's own second factor",
  'POST /api/auth/passkey/options': 'sign-in (a challenge)',
  'POST /api/auth/passkey': 'sign-in (recorded as sign_in.passkey.*)',
  'POST /api/workspaces': 'creates a new workspace (nobody else can see its log yet)',
  'POST /api/invites/lookup': 'reads an invitation',
  'POST /api/partner-invites/lookup': 'reads a partner invitation',
  'POST /api/me/sso/link': "a person's own account (starts linking their SSO identity)",
  // Its workspace is known only inside the service, which writes `member.joined` itself (audit-log.test.ts).
  'POST /api/invites/accept': 'written by the invites service (member.joined)',
  'POST /api/partner-invites/accept': 'written by the partner invitations service (partner.joined)',
  // The partner portal's workspace is the seat's, known after the session: its service writes the entry (partner-portal tests).
  'POST /api/partner/links': 'written by the partner portal service (partner_link.created)',
  'PUT /api/partner/payout-details': 'written by the partner portal service (partner.payout_details_changed)',
  // Anyone may apply, without a credential: the service names the program's workspace (partner-applications.test.ts).
  'POST /api/apply/{slug}': 'written by the partner applications service (partner.applied)',
  // The embedded referral page's token is no workspace credential: its service writes the entry under the token's issuer (embed-referrals tests).
  'POST /api/embed/referrals/payouts-invite': 'written by the embedded referrals service (partner_invite.requested)',
  // The operator's API changes no one workspace here (its changes of a workspace are audited there, actor `operator`).
  'POST /admin/workspaces': 'creates a new workspace (nobody can see its log yet)',
  'POST /admin/users': 'an account, in no workspace (its memberships are audited)',
  'POST /admin/users/reset-link': "a person's own account",
  'POST /admin/secrets/reseal': 'every workspace, and no setting changes (the values are sealed anew)',
  // Stripe's calls in: payments, like conversion tracking.
  'POST /webhooks/stripe/{id}': 'payments in (Stripe)',
};

type Method = 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const MUTATING = ['post', 'put', 'patch', 'delete'];

interface Fixture {
  workspaceId: string;
  key: string;
  owner: SignedIn;
  clickId: string;
  collectionId: string;
  lead(externalId: string): Promise<string>;
}

/** As the operator (ADMIN_TOKEN); `url` under /admin. */
const byOperator = (method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  t.inject({ method, url: `/admin${url}`, headers: { ...bearer(ADMIN_TOKEN), ...headers }, payload: payload as string });
const byKey = (f: Fixture, method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  t.inject({ method, url, headers: { ...bearer(f.key), ...headers }, payload: payload as string });
const bySession = (f: Fixture, method: Method, url: string, payload?: unknown) => asSession(t, f.owner.cookie, method, url, payload);
const idOf = (res: LightMyRequestResponse) => {
  const body = res.json<{ id: string } | { id: string }[]>();
  return Array.isArray(body) ? body[0]!.id : body.id;
};
const ws = (f: Fixture) => `/api/workspaces/${f.workspaceId}`;

async function webhook(f: Fixture): Promise<string> {
  return idOf(await byKey(f, 'POST', '/api/webhooks', { url: PUBLIC_URL, events: ['link.created'] }));
}
async function member(f: Fixture): Promise<string> {
  const user = await createUser(t, { email: uniqueEmail('audited') });
  await addMember(t, f.workspaceId, user.id, 'member');
  return user.id;
}
async function app(f: Fixture) {
  return registerApp(t, f.owner, f.workspaceId, { scopes: ['linksRead'] });
}
/** PUT /api/sso against the test's provider, for one domain. */
const configureSso = (f: Fixture, domain: string) =>
  asSession(
    t,
    f.owner.cookie,
    'PUT',
    '/api/sso',
    { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, domains: [domain], role: 'member' },
    { workspaceId: f.workspaceId },
  );
const domainHost = () => `audit-${Math.random().toString(36).slice(2)}.example.org`;

/**
 * Each audited route: a scenario whose LAST request is the route under test, answered 2xx
 * (earlier requests make what it needs, and may write their own entries).
 */
type Scenario = (f: Fixture) => Promise<LightMyRequestResponse>;
const bulk = (path: string, item: (f: Fixture) => object): Record<string, Scenario> => ({
  [`POST ${path}`]: (f) => byKey(f, 'POST', path, [item(f), item(f)]),
  [`PUT ${path}`]: async (f) => byKey(f, 'PUT', path, [{ id: idOf(await byKey(f, 'POST', path, [item(f)])), ...item(f) }, item(f)]),
  [`DELETE ${path}`]: async (f) => byKey(f, 'DELETE', path, [idOf(await byKey(f, 'POST', path, [item(f)]))]),
});
const n = () => Math.random().toString(36).slice(2);
/** Waits until the workspace runs no import (one at a time: the next would be 409 import_running). */
async function importsIdle(f: Fixture): Promise<void> {
  const idle = async () =>
    !(await t.inject({ method: 'GET', url: '/api/imports', headers: bearer(f.key) })).json<{ status: string }[]>().some((i) => i.status === 'running');
  expect(await within(60_000, idle), 'the previous import never finished').toBe(true);
}
/** A claimed host of the workspace, pending. */
const claimedDomain = async (f: Fixture) => idOf(await byKey(f, 'POST', '/api/domains', { host: domainHost() }));
/** The workspace's partner program (made once; later calls change nothing that matters here). */
const program = (f: Fixture) =>
  byKey(f, 'PUT', '/api/program', { name: 'Audited', slug: `a-${f.workspaceId.slice(-12)}`, landingUrl: 'https://shop.example/', currency: 'usd' });
async function partnerWithCommission(f: Fixture, currency: string): Promise<string> {
  await program(f);
  const partnerId = idOf(await byKey(f, 'POST', '/api/partners', [{ name: `p-${n()}` }]));
  await byKey(f, 'POST', '/api/commissions', [{ partnerId, earnings: 100, currency, description: 'bonus' }]);
  return partnerId;
}
const payoutIn = async (f: Fixture, currency: string) => {
  await partnerWithCommission(f, currency);
  return idOf(await byKey(f, 'POST', '/api/payouts', { currency }));
};
const SCENARIOS: Record<string, Scenario> = {
  'PUT /api/program': (f) => program(f),
  'PUT /api/tracking': (f) => byKey(f, 'PUT', '/api/tracking', { allowedHostnames: ['audited.example'], clientSales: true }),
  'POST /api/tracking/rotate': async (f) => {
    await byKey(f, 'PUT', '/api/tracking', { allowedHostnames: ['audited.example'] });
    return byKey(f, 'POST', '/api/tracking/rotate', { immediate: false });
  },
  'POST /api/partner-groups': async (f) => (await program(f), byKey(f, 'POST', '/api/partner-groups', [{ name: `g-${n()}` }])),
  'PUT /api/partner-groups': async (f) => {
    await program(f);
    const id = idOf(await byKey(f, 'POST', '/api/partner-groups', [{ name: `g-${n()}` }]));
    return byKey(f, 'PUT', '/api/partner-groups', [{ id, rewards: [{ event: 'lead', type: 'flat', amount: 100 }] }]);
  },
  'DELETE /api/partner-groups': async (f) => {
    await program(f);
    return byKey(f, 'DELETE', '/api/partner-groups', [idOf(await byKey(f, 'POST', '/api/partner-groups', [{ name: `g-${n()}` }]))]);
  },
  'POST /api/commissions': async (f) => {
    await program(f);
    const partnerId = idOf(await byKey(f, 'POST', '/api/partners', [{ name: `p-${n()}` }]));
    return byKey(f, 'POST', '/api/commissions', [{ partnerId, earnings: 100, currency: 'usd', description: 'bonus' }]);
  },
  'PATCH /api/commissions': async (f) => {
    await program(f);
    const partnerId = idOf(await byKey(f, 'POST', '/api/partners', [{ name: `p-${n()}` }]));
    const id = idOf(await byKey(f, 'POST', '/api/commissions', [{ partnerId, earnings: 100, currency: 'usd', description: 'bonus' }]));
    return byKey(f, 'PATCH', '/api/commissions', [{ id, status: 'reversed' }]);
  },
  'POST /api/payouts': async (f) => (await partnerWithCommission(f, 'usd'), byKey(f, 'POST', '/api/payouts', { currency: 'usd' })),
  'POST /api/partner-invites': async (f) => {
    await program(f);
    const partnerId = idOf(await byKey(f, 'POST', '/api/partners', [{ name: `p-${n()}`, email: uniqueEmail() }]));
    return byKey(f, 'POST', '/api/partner-invites', [{ partnerId }]);
  },
  'POST /api/embed-tokens': async (f) => {
    await program(f);
    const partnerId = idOf(await byKey(f, 'POST', '/api/partners', [{ name: `p-${n()}` }]));
    return byKey(f, 'POST', '/api/embed-tokens', { partnerId });
  },
  'POST /api/payouts/:id/complete': async (f) => byKey(f, 'POST', `/api/payouts/${await payoutIn(f, 'eur')}/complete`, { reference: 'batch-1' }),
  'POST /api/payouts/:id/cancel': async (f) => byKey(f, 'POST', `/api/payouts/${await payoutIn(f, 'gbp')}/cancel`, {}),
  'POST /api/links/:id/test/complete': async (f) => {
    const test = {
      variants: [
        { url: 'https://example.com/a', weight: 50 },
        { url: 'https://example.com/b', weight: 50 },
      ],
      endsAt: new Date(Date.now() + 86_400_000).toISOString(),
      metric: 'leads',
    };
    const id = idOf(await byKey(f, 'POST', '/api/links', [{ url: `https://example.com/${n()}`, collectionId: f.collectionId, test }]));
    return byKey(f, 'POST', `/api/links/${id}/test/complete`, { variant: 1 });
  },
  ...bulk('/api/links', (f) => ({ url: `https://example.com/${n()}`, collectionId: f.collectionId })),
  ...bulk('/api/collections', () => ({ name: `c-${n()}` })),
  ...bulk('/api/tags', () => ({ name: `t-${n()}` })),
  ...bulk('/api/partners', () => ({ name: `p-${n()}` })),
  'PUT /api/customers': async (f) => byKey(f, 'PUT', '/api/customers', [{ id: await f.lead(`put-${n()}`), name: 'Renamed' }]),
  'DELETE /api/customers': async (f) => byKey(f, 'DELETE', '/api/customers', [await f.lead(`del-${n()}`)]),
  'POST /api/domains': (f) => byKey(f, 'POST', '/api/domains', { host: domainHost() }),
  'PATCH /api/domains/:id': async (f) =>
    byKey(f, 'PATCH', `/api/domains/${idOf(await byKey(f, 'POST', '/api/domains', { host: domainHost() }))}`, { notFoundUrl: 'https://example.com/404' }),
  'DELETE /api/domains/:id': async (f) => byKey(f, 'DELETE', `/api/domains/${idOf(await byKey(f, 'POST', '/api/domains', { host: domainHost() }))}`),
  'POST /api/domains/:id/verify': async (f) => {
    const id = idOf(await byKey(f, 'POST', '/api/domains', { host: domainHost() }));
    // The operator verifies it (no DNS here); the workspace's own check then answers 200.
    expect((await t.admin('POST', `/domains/${id}/verify`)).statusCode).toBeLessThan(300);
    return byKey(f, 'POST', `/api/domains/${id}/verify`);
  },
  'POST /admin/domains/:id/verify': async (f) => byOperator('POST', `/domains/${await claimedDomain(f)}/verify`),
  'DELETE /admin/domains/:id': async (f) => byOperator('DELETE', `/domains/${await claimedDomain(f)}`),
  'PATCH /admin/workspaces/:id': (f) => byOperator('PATCH', `/workspaces/${f.workspaceId}`, { name: `renamed ${n()}` }),
  'POST /admin/workspaces/:id/keys': (f) => byOperator('POST', `/workspaces/${f.workspaceId}/keys`, { name: 'by operator', scopes: ['linksRead'] }),
  'DELETE /admin/keys/:id': async (f) =>
    byOperator('DELETE', `/keys/${idOf(await byOperator('POST', `/workspaces/${f.workspaceId}/keys`, { name: 'gone', scopes: ['linksRead'] }))}`),
  'POST /admin/workspaces/:id/members': async (f) =>
    byOperator('POST', `/workspaces/${f.workspaceId}/members`, { userId: (await createUser(t, { email: uniqueEmail('added') })).id, role: 'viewer' }),
  'POST /admin/workspaces/:id/sso/domains/:domain/verify': async (f) => {
    const domain = domainHost();
    await configureSso(f, domain);
    return byOperator('POST', `/workspaces/${f.workspaceId}/sso/domains/${domain}/verify`);
  },
  'POST /admin/workspaces/:workspaceId/imports': async (f) => {
    await importsIdle(f);
    return byOperator(
      'POST',
      `/workspaces/${f.workspaceId}/imports?source=bitly&collection=Imported`,
      fixtureWithFreshHosts('bitly.csv', ['brand.link', 'bit.ly']).file,
      { 'content-type': 'text/csv' },
    );
  },
  'POST /api/imports': async (f) => {
    await importsIdle(f);
    return byKey(f, 'POST', '/api/imports?source=bitly&collection=Imported', fixtureWithFreshHosts('bitly.csv', ['brand.link', 'bit.ly']).file, {
      'content-type': 'text/csv',
    });
  },
  // Connecting Stripe is an owner's act by session (operations.md §12).
  'POST /api/integrations/stripe': (f) => asSession(t, f.owner.cookie, 'POST', '/api/integrations/stripe', undefined, { workspaceId: f.workspaceId }),
  'PUT /api/integrations/stripe': (f) =>
    asSession(t, f.owner.cookie, 'PUT', '/api/integrations/stripe', { signingSecret: SIGNING_SECRET }, { workspaceId: f.workspaceId }),
  'DELETE /api/integrations/stripe': (f) => asSession(t, f.owner.cookie, 'DELETE', '/api/integrations/stripe', undefined, { workspaceId: f.workspaceId }),
  'POST /api/qr-logos': (f) =>
    byKey(
      f,
      'POST',
      '/api/qr-logos',
      pngImage(64, 64, () => [37, 99, 235, 255]),
      { 'content-type': 'image/png' },
    ),
  'DELETE /api/qr-logos/:id': async (f) =>
    byKey(
      f,
      'DELETE',
      `/api/qr-logos/${idOf(
        await byKey(
          f,
          'POST',
          '/api/qr-logos',
          pngImage(64, 64, () => [0, 0, 0, 255]),
          { 'content-type': 'image/png' },
        ),
      )}`,
    ),
  'POST /api/utm-templates': (f) => byKey(f, 'POST', '/api/utm-templates', { name: `u-${n()}`, utm: { source: 'news' } }),
  'PATCH /api/utm-templates/:id': async (f) =>
    byKey(f, 'PATCH', `/api/utm-templates/${idOf(await byKey(f, 'POST', '/api/utm-templates', { name: `u-${n()}`, utm: { source: 'a' } }))}`, {
      name: `u-${n()}`,
    }),
  'DELETE /api/utm-templates/:id': async (f) =>
    byKey(f, 'DELETE', `/api/utm-templates/${idOf(await byKey(f, 'POST', '/api/utm-templates', { name: `u-${n()}`, utm: { source: 'a' } }))}`),
  'POST /api/webhooks': (f) => byKey(f, 'POST', '/api/webhooks', { url: PUBLIC_URL, events: ['link.created'] }),
  'PATCH /api/webhooks/:id': async (f) => byKey(f, 'PATCH', `/api/webhooks/${await webhook(f)}`, { description: 'changed' }),
  'DELETE /api/webhooks/:id': async (f) => byKey(f, 'DELETE', `/api/webhooks/${await webhook(f)}`),
  'POST /api/webhooks/:id/secret': async (f) => byKey(f, 'POST', `/api/webhooks/${await webhook(f)}/secret`),
  'POST /api/webhooks/:id/recover': async (f) =>
    byKey(f, 'POST', `/api/webhooks/${await webhook(f)}/recover`, { since: new Date(Date.now() - 3600_000).toISOString() }),
  'POST /api/webhooks/:id/test': async (f) => byKey(f, 'POST', `/api/webhooks/${await webhook(f)}/test`),
  'POST /api/webhooks/:id/deliveries/:deliveryId/retry': async (f) => {
    const endpointId = await webhook(f);
    const d = await seedDelivery(t, { workspaceId: f.workspaceId, endpointId, status: 'failed', createdAt: new Date(Date.now() - 60_000), statusCode: 500 });
    return byKey(f, 'POST', `/api/webhooks/${endpointId}/deliveries/${d.deliveryId}/retry`);
  },
  'PATCH /api/workspaces/:id': (f) => bySession(f, 'PATCH', ws(f), { name: `renamed ${n()}` }),
  'PUT /api/sso': (f) => configureSso(f, domainHost()),
  'DELETE /api/sso': async (f) => {
    await configureSso(f, domainHost());
    return asSession(t, f.owner.cookie, 'DELETE', '/api/sso', undefined, { workspaceId: f.workspaceId });
  },
  'POST /api/sso/domains/:domain/verify': async (f) => {
    const domain = domainHost();
    const settings = (await configureSso(f, domain)).json<{ domains: { domain: string; txtName: string; txtValue: string }[] }>();
    const claim = settings.domains.find((d) => d.domain === domain)!;
    dns.records.set(claim.txtName, [claim.txtValue]);
    return asSession(t, f.owner.cookie, 'POST', `/api/sso/domains/${domain}/verify`, undefined, { workspaceId: f.workspaceId });
  },
  'POST /api/workspaces/:id/keys': (f) => bySession(f, 'POST', `${ws(f)}/keys`, { name: 'minted', scopes: ['linksRead'] }),
  'DELETE /api/workspaces/:id/keys/:keyId': async (f) =>
    bySession(f, 'DELETE', `${ws(f)}/keys/${idOf(await bySession(f, 'POST', `${ws(f)}/keys`, { name: 'gone', scopes: ['linksRead'] }))}`),
  'POST /api/workspaces/:id/invites': (f) => bySession(f, 'POST', `${ws(f)}/invites`, { email: uniqueEmail(), role: 'member' }),
  'DELETE /api/workspaces/:id/invites/:inviteId': async (f) =>
    bySession(f, 'DELETE', `${ws(f)}/invites/${idOf(await bySession(f, 'POST', `${ws(f)}/invites`, { email: uniqueEmail(), role: 'member' }))}`),
  'PATCH /api/workspaces/:id/members/:userId': async (f) => bySession(f, 'PATCH', `${ws(f)}/members/${await member(f)}`, { role: 'viewer' }),
  'DELETE /api/workspaces/:id/members/:userId': async (f) => bySession(f, 'DELETE', `${ws(f)}/members/${await member(f)}`),
  'POST /api/workspaces/:id/oauth-apps': (f) =>
    bySession(f, 'POST', `${ws(f)}/oauth-apps`, { name: 'App', redirectUris: ['https://app.example.com/cb'], confidential: true, scopes: ['linksRead'] }),
  'PATCH /api/workspaces/:id/oauth-apps/:appId': async (f) => bySession(f, 'PATCH', `${ws(f)}/oauth-apps/${(await app(f)).id}`, { name: 'Renamed app' }),
  'DELETE /api/workspaces/:id/oauth-apps/:appId': async (f) => bySession(f, 'DELETE', `${ws(f)}/oauth-apps/${(await app(f)).id}`),
  'POST /api/workspaces/:id/oauth-apps/:appId/secret': async (f) => bySession(f, 'POST', `${ws(f)}/oauth-apps/${(await app(f)).id}/secret`),
  'DELETE /api/workspaces/:id/authorizations/:grantId': async (f) => {
    const registered = await app(f);
    await connect(t, f.owner, registered, f.workspaceId, { scope: 'linksRead' });
    return bySession(f, 'DELETE', `${ws(f)}/authorizations/${await grantIdOf(t, f.owner, f.workspaceId, registered.id, f.owner.user.id)}`);
  },
};

/** `METHOD /path/{id}` of the document as the route table writes it: `METHOD /path/:id`. */
const asRoute = (key: string) => key.replace(/\{(\w+)\}/g, ':$1');

async function documentOperations(): Promise<string[]> {
  const doc = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json<{ paths: Record<string, Record<string, unknown>> }>();
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops)
      .filter((m) => MUTATING.includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
}

/** A workspace with a key, an owner's session, a click and a collection. */
async function fixture(): Promise<Fixture> {
  const { api, clickId } = await clientWithClick(t);
  const user = await createUser(t, { email: uniqueEmail('auditowner') });
  await addMember(t, api.ws.id, user.id, 'owner');
  return {
    workspaceId: api.ws.id,
    key: api.ws.key,
    owner: { user, cookie: await login(t, user) },
    clickId,
    collectionId: idOf(await t.inject({ method: 'POST', url: '/api/collections', headers: bearer(api.ws.key), payload: [{ name: 'for links' }] })),
    lead: async (externalId) => (await api.okLead({ clickId, eventName: 'Sign up', customerExternalId: externalId, customerName: 'Lead' })).customer.id,
  };
}

/**
 * What a request naming an unknown record sends besides its path, for the routes whose body
 * must pass validation before the record is looked up (else 400 comes first). A bulk route
 * names its records in the body instead of the path: an array of one unknown id.
 */
const UNKNOWN_ID_BODIES: Record<string, (unknownId: string) => unknown> = {
  'PUT /api/links': (id) => [{ id, url: 'https://example.com/unknown' }],
  'DELETE /api/links': (id) => [id],
  'PUT /api/collections': (id) => [{ id, name: 'unknown' }],
  'DELETE /api/collections': (id) => [id],
  'PUT /api/tags': (id) => [{ id, name: 'unknown' }],
  'DELETE /api/tags': (id) => [id],
  'PUT /api/partners': (id) => [{ id, name: 'unknown' }],
  'DELETE /api/partners': (id) => [id],
  'PUT /api/customers': (id) => [{ id, name: 'unknown' }],
  'DELETE /api/customers': (id) => [id],
  'PATCH /api/domains/:id': () => ({ notFoundUrl: 'https://example.com/404' }),
  'PATCH /api/utm-templates/:id': () => ({ name: 'unknown' }),
  'POST /api/payouts/:id/complete': () => ({}),
  'POST /api/payouts/:id/cancel': () => ({}),
  'POST /api/links/:id/test/complete': () => ({}),
  'PATCH /api/commissions': (id) => [{ id, status: 'reversed' }],
  'PATCH /api/webhooks/:id': () => ({ description: 'unknown' }),
  'POST /api/webhooks/:id/recover': () => ({ since: new Date(Date.now() - 3600_000).toISOString() }),
  'PATCH /api/workspaces/:id/members/:userId': () => ({ role: 'viewer' }),
  'PATCH /api/workspaces/:id/oauth-apps/:appId': () => ({ name: 'unknown' }),
  'PATCH /admin/workspaces/:id': () => ({ name: 'unknown' }),
  'POST /admin/workspaces/:id/keys': () => ({ name: 'unknown', scopes: ['linksRead'] }),
  'POST /admin/workspaces/:id/members': (id) => ({ userId: id, role: 'viewer' }),
};

/** The request an audited route gets for a record that does not exist, or undefined when it names no record (a create). */
function unknownRecordRequest(route: string, config: { scope?: unknown; workspaceRole?: unknown }, f: Fixture) {
  const [method, pattern] = route.split(' ') as [Method, string];
  const unknownId = randomUUID();
  const operator = pattern.startsWith('/admin/');
  let namesRecord = false;
  const url = pattern.replace(/:(\w+)/g, (_, name: string) => {
    // The operator's routes name a record or the workspace changed: either unknown here.
    // A person's settings route names its workspace by :id; that one exists.
    if (name === 'id' && config.workspaceRole) return f.workspaceId;
    namesRecord = true;
    return name === 'domain' ? `unknown-${n()}.example.org` : randomUUID();
  });
  const body = UNKNOWN_ID_BODIES[route]?.(unknownId);
  if (!namesRecord && !Array.isArray(body)) return undefined;
  const headers = operator
    ? bearer(ADMIN_TOKEN)
    : config.scope
      ? bearer(f.key)
      : sessionHeaders(f.owner.cookie, config.workspaceRole ? undefined : f.workspaceId);
  return { method, url, headers, payload: body as string | undefined };
}

describe('every mutating workspace route', () => {
  it('is either audited with a documented action or excluded with a reason, and the route table agrees', async () => {
    const ops = await documentOperations();
    expect(ops.length).toBeGreaterThan(40);
    const unsorted = ops.filter((o) => !(asRoute(o) in ROUTE_ACTIONS) && !(o in NOT_WORKSPACE));
    expect(unsorted, 'a mutating operation neither audited nor excluded').toEqual([]);
    expect(ops.filter((o) => asRoute(o) in ROUTE_ACTIONS && o in NOT_WORKSPACE)).toEqual([]);
    // Every action names a route the document has.
    expect(Object.keys(ROUTE_ACTIONS).filter((r) => !ops.map(asRoute).includes(r))).toEqual([]);
    // The hook audits exactly the routes of ROUTE_ACTIONS.
    const hooked = routeTable(t.runtime.app).flatMap((r) =>
      [r.method]
        .flat()
        .map(String)
        .filter((m) => isAuditedRoute(m, r.url ?? '', r.config ?? {}))
        .map((m) => `${m} ${r.url}`),
    );
    expect([...new Set(hooked)].sort()).toEqual(Object.keys(ROUTE_ACTIONS).sort());
    expect(Object.keys(SCENARIOS).sort()).toEqual(Object.keys(ROUTE_ACTIONS).sort());
  });

  it('writes exactly one entry with its action for each of them, on success', async () => {
    const f = await fixture();
    const failures: string[] = [];
    const countOf = async (action: string) => (await changes(t, f.owner, f.workspaceId, `take=5000&action=${action}`)).length;
    for (const [route, scenario] of Object.entries(SCENARIOS)) {
      const before = await countOf(ROUTE_ACTIONS[route]!);
      const res = await scenario(f);
      if (res.statusCode >= 300) {
        failures.push(`${route}: scenario answered ${res.statusCode} ${res.body}`);
        continue;
      }
      // The route under test was the scenario's last request: its entry is the newest.
      const [newest] = await changes(t, f.owner, f.workspaceId, 'take=1');
      if (newest?.action !== ROUTE_ACTIONS[route]) failures.push(`${route}: newest entry ${newest?.action}, expected ${ROUTE_ACTIONS[route]}`);
      // Setups never call the route under test, so its action's entries grew by exactly this request's one.
      const added = (await countOf(ROUTE_ACTIONS[route]!)) - before;
      if (added !== 1) failures.push(`${route}: ${added} entries`);
    }
    expect(failures).toEqual([]);
  });

  it('writes no entry for a request naming a record that does not exist (404, or 400 for a bulk body)', async () => {
    const f = await fixture();
    const configs = new Map<string, { scope?: unknown; workspaceRole?: unknown }>(
      routeTable(t.runtime.app).flatMap((r) => [r.method].flat().map((m) => [`${String(m)} ${r.url}`, r.config ?? {}] as const)),
    );
    const failures: string[] = [];
    let tried = 0;
    for (const route of Object.keys(ROUTE_ACTIONS)) {
      const request = unknownRecordRequest(route, configs.get(route)!, f);
      if (!request) continue;
      tried++;
      const before = (await changes(t, f.owner, f.workspaceId)).length;
      const res = await t.inject(request);
      const expected = request.url === route.split(' ')[1] ? 400 : 404;
      if (res.statusCode !== expected)
        failures.push(`${route}: answered ${res.statusCode} ${res.body}, expected ${expected} (give it a body in UNKNOWN_ID_BODIES?)`);
      const written = (await changes(t, f.owner, f.workspaceId)).length - before;
      if (written !== 0) failures.push(`${route}: ${res.statusCode} wrote ${written} entries`);
    }
    expect(tried).toBeGreaterThan(25);
    expect(failures).toEqual([]);
  });
});
