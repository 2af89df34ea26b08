/**
 * The create operations the request-contract test drives: for each, a valid body (fresh names,
 * hosts and users every time) and how to send it, with the credential it takes. The test reads
 * everything else — which fields exist, which may be null, which are https-only — from the
 * served document, so a new field is covered without touching this file.
 */
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { bearer, type TestApp, type WorkspaceFixture } from '../helpers/app.js';
import { DESKTOP } from '../helpers/visitors.js';
import { createUser, ownedWorkspace, sessionHeaders, uniqueEmail } from '../modules/people/helpers.js';

export interface CreateOperation {
  /** `post /api/links`, as the document names it. */
  key: string;
  /** A body the server accepts. */
  valid(): Promise<unknown>;
  send(body: unknown): Promise<LightMyRequestResponse>;
}

/** POST operations with a JSON body that create nothing a client fills in, or cannot be driven by a body alone. */
export const NOT_CREATES: Record<string, string> = {
  'post /api/webhooks/{id}/recover': 'an action on a webhook (a date-time), not a record',
  'post /api/auth/login': 'sign-in',
  'post /api/auth/mfa': 'sign-in, second step',
  'post /api/auth/passkey': 'sign-in with a WebAuthn assertion',
  'post /api/auth/passkey/options': 'a sign-in challenge',
  'post /api/auth/password-reset': 'asks for a mail',
  'post /api/auth/password-reset/confirm': 'needs the token of a mail',
  'post /api/setup': 'first run only',
  'post /api/me/mfa/totp': 'starts enrolment (the password)',
  'post /api/me/mfa/totp/confirm': 'needs an authenticator code',
  'post /api/me/mfa/recovery-codes': 'regenerates codes (the password)',
  'post /api/me/passkeys': 'needs a WebAuthn attestation',
  'post /api/me/passkeys/options': 'a registration challenge',
  'post /api/me/sso/link': 'needs an identity provider',
  'post /api/invites/lookup': 'reads an invitation token',
  'post /api/invites/accept': 'needs the token of a mail',
  'post /admin/users/reset-link': 'an action on a user',
  'post /api/payouts': 'gathers what is payable (one pending payout per currency)',
  'post /api/partner-invites': 'an invitation of partners that exist, with an e-mail (test/modules/partner-invites)',
  'post /api/partner-invites/accept': 'needs the token of a mail',
  'post /api/partner-invites/lookup': 'reads a partner invitation token',
  'post /api/partner/links': "a partner's own session, approved (test/modules/partner-portal)",
  'post /api/apply/{slug}': 'an application answers 202 with no body, whoever applied (test/modules/partner-applications)',
  'post /api/embed-tokens': 'a token for a partner, not a record the API lists (test/modules/embed-referrals)',
  'post /api/embed/referrals/payouts-invite': "needs an embedded page's token; mails an invitation (test/modules/embed-referrals)",
  'post /api/payouts/{id}/complete': 'an action on a payout',
  'post /api/links/{id}/test/complete': "an action on a link's A/B test (test/modules/link-tests)",
  'post /api/track/refund': 'an action on a sale (its cumulative refunded amount)',
  'post /api/tracking/rotate': 'an action on the publishable key (immediate would end the one the browser-tracking operations here use)',
};

const unique = (label: string) => `${label}-${randomBytes(5).toString('hex')}`;

/** A visitor's click on a new link of the workspace: what a lead or a sale is attributed to. */
async function clickOf(
  t: TestApp,
  send: (method: string, url: string, body: unknown) => Promise<LightMyRequestResponse>,
  collectionId: string,
): Promise<string> {
  const made = await send('POST', '/api/links', [{ url: 'https://shop.example/landing', collectionId }]);
  const shortUrl = made.json<{ shortUrl: string }[]>()[0]!.shortUrl;
  const visit = await t.inject({ method: 'GET', url: new URL(shortUrl).pathname, remoteAddress: '81.2.69.160', headers: { 'user-agent': DESKTOP } });
  return new URL(String(visit.headers.location)).searchParams.get('ltid')!;
}

/** Every create operation the test knows, on one enterprise workspace (every plan feature) and its signed-in owner. */
export async function createOperations(t: TestApp, ws: WorkspaceFixture): Promise<CreateOperation[]> {
  const json = { ...bearer(ws.key), 'content-type': 'application/json' };
  const send = (method: string, url: string, body: unknown) => t.inject({ method: method as 'POST', url, headers: json, payload: JSON.stringify(body) });
  const collectionId = (await send('POST', '/api/collections', [{ name: 'contract' }])).json<{ id: string }[]>()[0]!.id;
  const clickId = await clickOf(t, send, collectionId);
  // The partner program's creates need a program, and a partner for commissions.
  await send('PUT', '/api/program', { name: 'Contract', slug: unique('contract'), landingUrl: 'https://shop.example/', currency: 'usd' });
  const partnerId = (await send('POST', '/api/partners', [{ name: 'Contract partner' }])).json<{ id: string }[]>()[0]!.id;
  const { workspace: owned, owner } = await ownedWorkspace(t);
  const asOwner = (url: string) => (body: unknown) =>
    t.inject({ method: 'POST', url, headers: { ...sessionHeaders(owner.cookie), 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  const asAdmin = (url: string) => (body: unknown) => t.admin('POST', url, body);
  const withKey = (url: string) => (body: unknown) => send('POST', url, body);
  // The browser-tracking operations: the publishable key from a page of an allowed hostname, each from its own visitor address.
  const tracking = await send('PUT', '/api/tracking', { allowedHostnames: ['contract.example'], clientSales: true });
  const publishable = tracking.json<{ publishableKey: string }>().publishableKey;
  const fromPage = (url: string) => (body: unknown) =>
    t.inject({
      method: 'POST',
      url,
      remoteAddress: `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`,
      headers: { authorization: `Bearer ${publishable}`, origin: 'https://contract.example', 'content-type': 'application/json', 'user-agent': DESKTOP },
      payload: JSON.stringify(body),
    });
  const shortId = new URL(
    (await send('POST', '/api/links', [{ url: 'https://shop.example/page', collectionId }])).json<{ shortUrl: string }[]>()[0]!.shortUrl,
  ).pathname.slice(1);

  const ops: [string, () => unknown | Promise<unknown>, (body: unknown) => Promise<LightMyRequestResponse>][] = [
    ['/api/collections', () => [{ name: unique('c') }], withKey('/api/collections')],
    ['/api/tags', () => [{ name: unique('t') }], withKey('/api/tags')],
    ['/api/partners', () => [{ name: unique('p') }], withKey('/api/partners')],
    [
      '/api/links',
      // With an A/B test, so that its nested fields are driven in place too.
      () => [
        {
          url: 'https://example.com/landing',
          collectionId,
          test: {
            variants: [
              { url: 'https://example.com/a', weight: 50 },
              { url: 'https://example.com/b', weight: 50 },
            ],
            endsAt: new Date(Date.now() + 86_400_000).toISOString(),
            metric: 'revenue',
            currency: 'usd',
          },
        },
      ],
      withKey('/api/links'),
    ],
    ['/api/track/lead', () => ({ clickId, eventName: 'Sign up', customerExternalId: unique('cu'), customerName: 'Ada' }), withKey('/api/track/lead')],
    ['/api/track/sale', () => ({ clickId, customerExternalId: unique('cu'), customerName: 'Ada', amount: 100 }), withKey('/api/track/sale')],
    ['/api/track/click', () => ({ shortId, url: 'https://contract.example/?utm_source=x', referrer: 'https://news.example/' }), fromPage('/api/track/click')],
    [
      '/api/track/lead/client',
      () => ({ clickId, eventName: 'Sign up', customerExternalId: unique('cu'), customerName: 'Ada' }),
      fromPage('/api/track/lead/client'),
    ],
    ['/api/track/sale/client', () => ({ clickId, customerExternalId: unique('cu'), customerName: 'Ada', amount: 100 }), fromPage('/api/track/sale/client')],
    ['/api/webhooks', () => ({ url: 'https://93.184.215.14/hooks/contract', events: ['link.created'] }), withKey('/api/webhooks')],
    ['/api/domains', () => ({ host: `${unique('brand')}.example` }), withKey('/api/domains')],
    ['/api/utm-templates', () => ({ name: unique('u'), utm: { source: 'newsletter' } }), withKey('/api/utm-templates')],
    ['/api/partner-groups', () => [{ name: unique('g') }], withKey('/api/partner-groups')],
    ['/api/commissions', () => [{ partnerId, earnings: 100, currency: 'usd', description: unique('bonus') }], withKey('/api/commissions')],
    ['/api/workspaces', () => ({ name: unique('w') }), asOwner('/api/workspaces')],
    ['/api/me/tokens', () => ({ name: unique('token'), workspaceId: owned.id, scopes: ['linksRead'] }), asOwner('/api/me/tokens')],
    ['/api/workspaces/{id}/keys', () => ({ name: unique('key'), scopes: ['linksRead'] }), asOwner(`/api/workspaces/${owned.id}/keys`)],
    ['/api/workspaces/{id}/invites', () => ({ email: uniqueEmail('invited'), role: 'member' }), asOwner(`/api/workspaces/${owned.id}/invites`)],
    [
      '/api/workspaces/{id}/oauth-apps',
      () => ({ name: unique('app'), redirectUris: ['https://app.example.com/cb'], confidential: true, scopes: ['linksRead'] }),
      asOwner(`/api/workspaces/${owned.id}/oauth-apps`),
    ],
    ['/admin/workspaces', () => ({ name: unique('w') }), asAdmin('/workspaces')],
    ['/admin/workspaces/{id}/keys', () => ({ name: unique('key'), scopes: ['linksRead'] }), asAdmin(`/workspaces/${ws.id}/keys`)],
    ['/admin/users', () => ({ email: uniqueEmail('u'), name: 'Ada', password: 'a long enough secret phrase' }), asAdmin('/users')],
    ['/admin/workspaces/{id}/members', async () => ({ userId: (await createUser(t)).id, role: 'member' }), asAdmin(`/workspaces/${ws.id}/members`)],
  ];
  return ops.map(([path, valid, sendBody]) => ({ key: `post ${path}`, valid: async () => valid(), send: sendBody }));
}
