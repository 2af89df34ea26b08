/**
 * An endpoint registered by an OAuth app (operations.md §11) records the app, the person and
 * the grant; when that grant ends — however it ends — the endpoint is disabled at once with
 * `grant_ended`, in the database (so on every instance), and cannot be enabled again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../../src/core/scopes.js';
import { startTestApp, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';
import { asSession, expectError, ownedWorkspace, signedInMember, type SignedIn } from '../people/helpers.js';
import { connect, grantIdOf, refreshRequest, registerApp, revokeRequest, type RegisteredApp, type TokenAnswer } from '../oauth/helpers.js';
import { call, endpointRow, NO_DELIVERY, register, type WebhookAnswer } from './helpers.js';

const APP_SCOPES: Scope[] = ['linksRead', 'webhooksRead', 'webhooksWrite'];
let t: TestApp;
let workspace: WorkspaceFixture;
let owner: SignedIn;

beforeAll(async () => {
  t = await startTestApp({ env: NO_DELIVERY });
  ({ workspace, owner } = await ownedWorkspace(t));
});
afterAll(() => t?.close());

/** A new app connected by `who`: its token registers an endpoint. */
async function endpointByApp(who: SignedIn = owner): Promise<{ app: RegisteredApp; tokens: TokenAnswer; hook: WebhookAnswer; grantId: string }> {
  const app = await registerApp(t, owner, workspace.id, { scopes: APP_SCOPES });
  const tokens = await connect(t, who, app, workspace.id, { scope: APP_SCOPES.join(' ') });
  const hook = await register(t, tokens.access_token, { events: ['link.created'] });
  return { app, tokens, hook, grantId: await grantIdOf(t, owner, workspace.id, app.id, who.user.id) };
}

async function expectEndedWith(hookId: string): Promise<void> {
  const shown = (await call(t, workspace.key, 'GET', `/api/webhooks/${hookId}`)).json<WebhookAnswer>();
  expect(shown).toMatchObject({ disabled: true, disabledReason: 'grant_ended' });
  expect(await endpointRow(t, hookId)).toMatchObject({ disabled: true, disabledReason: 'grant_ended' });
}

describe('an endpoint registered by an OAuth app', () => {
  it('records the app, the person it acts for, and the grant', async () => {
    const { app, hook, grantId } = await endpointByApp();
    expect(hook.createdBy).toEqual({ type: 'app', id: app.id, userId: owner.user.id });
    expect((await endpointRow(t, hook.id)).oauthGrantId).toBe(grantId);
  });

  it('is disabled when the owner disconnects the app, and cannot be enabled again; other endpoints are untouched', async () => {
    const byKey = await register(t, workspace.key);
    const { hook, grantId } = await endpointByApp();
    const res = await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${workspace.id}/authorizations/${grantId}`);
    expect(res.statusCode, res.body).toBe(200);
    await expectEndedWith(hook.id);
    expectError(await call(t, workspace.key, 'PATCH', `/api/webhooks/${hook.id}`, { disabled: false }), 400, 'invalid_field', 'disabled');
    // Still disabled for its reason after a manual disable/other change.
    expect((await call(t, workspace.key, 'PATCH', `/api/webhooks/${hook.id}`, { disabled: true })).json()).toMatchObject({ disabledReason: 'grant_ended' });
    expect((await call(t, workspace.key, 'GET', `/api/webhooks/${byKey.id}`)).json()).toMatchObject({ disabled: false });
  });

  it('is disabled when the app revokes its refresh token (RFC 7009), or reuses a spent one', async () => {
    const first = await endpointByApp();
    const revoked = await revokeRequest(t, first.app, first.tokens.refresh_token);
    expect(revoked.statusCode, revoked.body).toBe(200);
    await expectEndedWith(first.hook.id);

    const second = await endpointByApp();
    expect((await refreshRequest(t, second.app, second.tokens.refresh_token)).statusCode).toBe(200);
    expect((await refreshRequest(t, second.app, second.tokens.refresh_token)).statusCode).toBe(400);
    await expectEndedWith(second.hook.id);
  });

  it('is disabled when the app is deleted', async () => {
    const { app, hook } = await endpointByApp();
    const res = await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${workspace.id}/oauth-apps/${app.id}`);
    expect(res.statusCode, res.body).toBe(200);
    await expectEndedWith(hook.id);
  });

  it('is disabled when the person who connected the app leaves the workspace (here a second owner, who holds the webhook scopes by role)', async () => {
    const member = await signedInMember(t, workspace.id, 'owner');
    const { hook } = await endpointByApp(member);
    expect(hook.createdBy).toMatchObject({ type: 'app', userId: member.user.id });
    const res = await asSession(t, owner.cookie, 'DELETE', `/api/workspaces/${workspace.id}/members/${member.user.id}`);
    expect(res.statusCode, res.body).toBe(200);
    await expectEndedWith(hook.id);
  });
});
