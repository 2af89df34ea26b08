/**
 * OAuth access tokens across two instances on one PostgreSQL and one Redis (operations.md §9):
 * a token obtained on A works on B; once B has it cached, a revocation on A (POST
 * /oauth/revoke, the consent removed in the settings, the app deleted, the user removed or
 * demoted) holds on B's very next request — asked right after A answered, with no allowance
 * for the pub/sub message (the shared credential epoch makes it strict).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { oauthTokens } from '../../../src/db/schema.js';
import { sha256 } from '../../../src/core/secret.js';
import { onPostgres, onRedis, startTestApp, type TestApp } from '../../helpers/app.js';
import { asSession, expectError, ownedWorkspace, signedInMember, type SignedIn } from '../people/helpers.js';
import {
  connect,
  grantIdOf,
  newCollection,
  readLinks,
  refreshRequest,
  registerApp,
  revokeRequest,
  writeLink,
  type RegisteredApp,
  type TokenAnswer,
} from './helpers.js';

describe.skipIf(!onPostgres || !onRedis)('two instances: an OAuth token from A, ended on A, is 401 on B at its very next request', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
    await Promise.all([untilCaching(a), untilCaching(b)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  const ok = (res: LightMyRequestResponse, what: string) => expect(res.statusCode, `${what}: ${res.body}`).toBeLessThan(300);

  interface Scene {
    workspaceId: string;
    collectionId: string;
    owner: SignedIn;
    member: SignedIn;
    app: RegisteredApp;
    tokens: TokenAnswer;
  }

  /** Everything made on A: a workspace, its owner and a member, an app, the member's consent and tokens; then the token used on B (cached there). */
  async function scene(): Promise<Scene> {
    const { workspace, owner } = await ownedWorkspace(a);
    const member = await signedInMember(a, workspace.id, 'member');
    const collectionId = await newCollection(a, workspace.key);
    const app = await registerApp(a, owner, workspace.id);
    const tokens = await connect(a, member, app, workspace.id);
    ok(await readLinks(b, tokens.access_token), 'read on B');
    ok(await writeLink(b, tokens.access_token, collectionId), 'write on B');
    ok(await readLinks(b, tokens.access_token), 'read on B again');
    return { workspaceId: workspace.id, collectionId, owner, member, app, tokens };
  }

  /**
   * The tests prove something only if B serves the token from its cache: a token revoked
   * behind its back (in the table, with no announcement) must still work there. Wait until
   * each instance's bus is subscribed and it does cache.
   */
  async function untilCaching(t: TestApp): Promise<void> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const s = await scene();
      ok(await readLinks(t, s.tokens.access_token), 'probe token');
      await a.database.db
        .update(oauthTokens)
        .set({ revokedAt: new Date() })
        .where(eq(oauthTokens.tokenHash, sha256(s.tokens.access_token)));
      if ((await readLinks(t, s.tokens.access_token)).statusCode === 200) return;
      if (Date.now() > deadline) throw new Error('the instance never cached an OAuth access token: is its Redis bus subscribed?');
      await sleep(50);
    }
  }

  test('a token obtained on A works on B, and a pair refreshed on B works on A', async () => {
    const s = await scene();
    const refreshed = await refreshRequest(b, s.app, s.tokens.refresh_token);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    ok(await readLinks(a, refreshed.json<TokenAnswer>().access_token), 'refreshed token on A');
  });

  test('the access token revoked on A (POST /oauth/revoke): 401 on B at once', async () => {
    const s = await scene();
    const res = await revokeRequest(a, s.app, s.tokens.access_token);
    expect(res.statusCode, res.body).toBe(200);
    expectError(await readLinks(b, s.tokens.access_token), 401, 'credential_revoked');
  });

  test("the refresh token revoked on A: the grant's access token is 401 on B at once", async () => {
    const s = await scene();
    const res = await revokeRequest(a, s.app, s.tokens.refresh_token);
    expect(res.statusCode, res.body).toBe(200);
    expectError(await readLinks(b, s.tokens.access_token), 401, 'credential_revoked');
  });

  test('the consent removed in the settings on A: 401 on B at once', async () => {
    const s = await scene();
    const grantId = await grantIdOf(a, s.owner, s.workspaceId, s.app.id, s.member.user.id);
    const res = await asSession(a, s.owner.cookie, 'DELETE', `/api/workspaces/${s.workspaceId}/authorizations/${grantId}`);
    expect(res.statusCode, res.body).toBe(200);
    expectError(await readLinks(b, s.tokens.access_token), 401, 'credential_revoked');
  });

  test('the app deleted on A: 401 on B at once', async () => {
    const s = await scene();
    const res = await asSession(a, s.owner.cookie, 'DELETE', `/api/workspaces/${s.workspaceId}/oauth-apps/${s.app.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expectError(await readLinks(b, s.tokens.access_token), 401, 'credential_revoked');
  });

  test('the user removed on A: 401 on B at once', async () => {
    const s = await scene();
    const res = await asSession(a, s.owner.cookie, 'DELETE', `/api/workspaces/${s.workspaceId}/members/${s.member.user.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expectError(await readLinks(b, s.tokens.access_token), 401, 'credential_revoked');
  });

  test('the user demoted to viewer on A, or the app narrowed to linksRead: writes 403 on B at once, reads still work', async () => {
    const s = await scene();
    const demoted = await asSession(a, s.owner.cookie, 'PATCH', `/api/workspaces/${s.workspaceId}/members/${s.member.user.id}`, { role: 'viewer' });
    expect(demoted.statusCode, demoted.body).toBe(200);
    expectError(await writeLink(b, s.tokens.access_token, s.collectionId), 403, 'missing_scopes');
    ok(await readLinks(b, s.tokens.access_token), 'read after the demotion');

    const t = await scene();
    const narrowed = await asSession(a, t.owner.cookie, 'PATCH', `/api/workspaces/${t.workspaceId}/oauth-apps/${t.app.id}`, { scopes: ['linksRead'] });
    expect(narrowed.statusCode, narrowed.body).toBe(200);
    expectError(await writeLink(b, t.tokens.access_token, t.collectionId), 403, 'missing_scopes');
    ok(await readLinks(b, t.tokens.access_token), 'read after the narrowing');
  });
});
