/**
 * The single sign-on connection (operations.md §15) through HTTP: owner only, with the session;
 * the secret sealed and never shown; the issuer read through the outbound guard (a private
 * address only inside SSO_ALLOWED_CIDRS); domains verified by TXT (a resolver the test answers
 * for, through the service) or by the operator.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import type { TestProvider } from '../../helpers/oidc-provider.js';
import { asSession, createHumanToken, expectError, ownedWorkspace, signedInMember } from '../people/helpers.js';
import { newProvider, uniqueDomain } from './helpers.js';

let t: TestApp;
let closed: TestApp;
let idp: TestProvider;
beforeAll(async () => {
  t = await startTestApp({ env: { SSO_ALLOWED_CIDRS: '127.0.0.1/32' } });
  closed = await startTestApp({ database: t.database });
  idp = await newProvider();
});
afterAll(async () => {
  await idp.stop();
  await closed.close();
  await t.close();
});

const body = (domains: string[], extra: Record<string, unknown> = {}) => ({
  issuer: idp.issuer,
  clientId: idp.clientId,
  clientSecret: idp.clientSecret,
  domains,
  role: 'member',
  ...extra,
});

describe('PUT, GET, DELETE /api/sso', () => {
  test('an owner sets it; GET never shows the secret, which is sealed in the database', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const domain = uniqueDomain();
    expectError(await asSession(t, owner.cookie, 'GET', '/api/sso', undefined, { workspaceId: workspace.id }), 404, 'sso_not_configured');
    const put = await asSession(t, owner.cookie, 'PUT', '/api/sso', body([domain.toUpperCase()], { requireSso: true }), { workspaceId: workspace.id });
    expect(put.statusCode, put.body).toBe(200);
    const got = await asSession(t, owner.cookie, 'GET', '/api/sso', undefined, { workspaceId: workspace.id });
    expect(got.json()).toMatchObject({
      issuer: idp.issuer,
      clientId: idp.clientId,
      role: 'member',
      requireSso: true,
      redirectUri: 'https://lt.test/api/auth/sso/callback',
    });
    const [d] = got.json<{ domains: { domain: string; verified: boolean; txtName: string; txtValue: string }[] }>().domains;
    expect(d).toMatchObject({ domain, verified: false, txtName: `_linktrail.${domain}` });
    expect(d!.txtValue).toMatch(/^linktrail-sso=[\w-]{32}$/);
    expect(put.body + got.body).not.toContain(idp.clientSecret);
    const [row] = await rows<{ s: string }>(
      t.database.db,
      sql`SELECT client_secret_sealed AS s FROM sso_connections WHERE workspace_id = ${workspace.id}::uuid`,
    );
    expect(row!.s).toMatch(/^s2\./);
    expect(row!.s).not.toContain(idp.clientSecret);
    // Without a secret, PUT keeps the one there; the domain keeps its token.
    const again = await asSession(t, owner.cookie, 'PUT', '/api/sso', { ...body([domain]), clientSecret: undefined }, { workspaceId: workspace.id });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json<{ domains: { txtValue: string }[] }>().domains[0]!.txtValue).toBe(d!.txtValue);
    const del = await asSession(t, owner.cookie, 'DELETE', '/api/sso', undefined, { workspaceId: workspace.id });
    expect(del.statusCode).toBe(204);
    expectError(await asSession(t, owner.cookie, 'GET', '/api/sso', undefined, { workspaceId: workspace.id }), 404, 'sso_not_configured');
  });

  test('members, viewers, tokens and strangers cannot', async () => {
    const { workspace } = await ownedWorkspace(t);
    const member = await signedInMember(t, workspace.id, 'member');
    expectError(await asSession(t, member.cookie, 'PUT', '/api/sso', body([uniqueDomain()]), { workspaceId: workspace.id }), 403, 'owner_required');
    expectError(await asSession(t, member.cookie, 'GET', '/api/sso', undefined, { workspaceId: workspace.id }), 403, 'owner_required');
    const stranger = await signedInMember(t, null, 'owner');
    expectError(await asSession(t, stranger.cookie, 'GET', '/api/sso', undefined, { workspaceId: workspace.id }), 404, 'not_found');
    const { owner } = await ownedWorkspace(t);
    const token = await createHumanToken(t, owner.cookie, workspace.id, ['linksRead']).catch(() => undefined);
    if (token)
      expectError(
        await t.inject({ method: 'GET', url: '/api/sso', headers: { authorization: `Bearer ${token.token}`, 'x-workspace-id': workspace.id } }),
        401,
        'session_required',
      );
    expectError(
      await t.inject({ method: 'GET', url: '/api/sso', headers: { authorization: `Bearer ${workspace.key}`, 'x-workspace-id': workspace.id } }),
      401,
      'session_required',
    );
    expectError(await asSession(t, member.cookie, 'GET', '/api/sso'), 400, 'workspace_required');
  });

  test('bad values are 400s naming the field', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const put = (b: unknown) => asSession(t, owner.cookie, 'PUT', '/api/sso', b, { workspaceId: workspace.id });
    expectError(await put(body(['not a domain'])), 400, 'invalid_field', 'domains[0]');
    expectError(await put(body(['a.test', 'A.test'])), 400, 'invalid_field', 'domains');
    expectError(await put(body(['a.test'], { issuer: 'ftp://idp.test' })), 400, 'invalid_field', 'issuer');
    expectError(await put(body(['a.test'], { clientSecret: undefined })), 400, 'invalid_field', 'clientSecret');
    expectError(await put(body(['a.test'], { role: 'owner' })), 400, 'invalid_field');
    expectError(await put(body(['a.test'], { issuer: `${idp.issuer}/other` })), 400, 'sso_issuer_unreachable');
  });

  test('without SSO_ALLOWED_CIDRS an issuer on a private address is refused with a clear 400', async () => {
    const { workspace, owner } = await ownedWorkspace(closed);
    const res = await asSession(closed, owner.cookie, 'PUT', '/api/sso', body([uniqueDomain()]), { workspaceId: workspace.id });
    expectError(res, 400, 'sso_issuer_blocked');
    expect(res.json<{ error: { en: string } }>().error.en).toContain('SSO_ALLOWED_CIDRS');
    expectError(await asSession(closed, owner.cookie, 'GET', '/api/sso', undefined, { workspaceId: workspace.id }), 404, 'sso_not_configured');
  });
});

describe('domain verification', () => {
  test('by TXT record: a domain without the record stays unverified (400 saying where and what)', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const domain = uniqueDomain();
    await asSession(t, owner.cookie, 'PUT', '/api/sso', body([domain]), { workspaceId: workspace.id });
    const res = await asSession(t, owner.cookie, 'POST', `/api/sso/domains/${domain}/verify`, undefined, { workspaceId: workspace.id });
    expect(res.statusCode, res.body).toBe(400);
    expect(['sso_txt_missing', 'sso_dns_failed']).toContain(res.json<{ error: { code: string } }>().error.code);
    expect(res.json<{ error: { en: string } }>().error.en).toContain(`_linktrail.${domain}`);
    expectError(await asSession(t, owner.cookie, 'POST', '/api/sso/domains/other.test/verify', undefined, { workspaceId: workspace.id }), 404, 'not_found');
  });

  test('by the operator', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const domain = uniqueDomain();
    await asSession(t, owner.cookie, 'PUT', '/api/sso', body([domain]), { workspaceId: workspace.id });
    const res = await t.admin('POST', `/workspaces/${workspace.id}/sso/domains/${domain}/verify`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ domains: { verified: boolean }[] }>().domains[0]!.verified).toBe(true);
    expect((await t.inject({ method: 'POST', url: `/admin/workspaces/${workspace.id}/sso/domains/${domain}/verify` })).statusCode).toBe(401);
  });
});
