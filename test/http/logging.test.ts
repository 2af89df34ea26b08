import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { InjectOptions } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createRuntime, LOG_REDACT, type Runtime } from '../../src/runtime.js';
import { ADMIN_TOKEN, bearer, testRuntimeOptions, testConfig } from '../helpers/app.js';
import { Browser, startProvider } from '../helpers/oidc-provider.js';
import { SoftAuthenticator, type CreationOptions, type RequestOptions } from '../helpers/webauthn.js';

let lines = '';
let rt: Runtime;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines += chunk.toString();
      done();
    },
  });
  // Everything the service logs, at the most verbose level, goes into `lines`.
  const logger = pino({ level: 'trace', redact: LOG_REDACT }, sink);
  rt = await createRuntime(testConfig({ LOG_LEVEL: 'trace', SSO_ALLOWED_CIDRS: '127.0.0.1/32' }), { logger, ...testRuntimeOptions() });
  await rt.app.ready();
});
afterAll(() => rt.close());

const inject = (o: InjectOptions) => rt.app.inject(o);

describe('logs', () => {
  test('carry a request id and the workspace id, and never a key, the operator token or a link password', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const ws = (await inject({ method: 'POST', url: '/admin/workspaces', headers: admin, payload: { name: 'log', plan: 'pro' } })).json();
    const { key } = (
      await inject({
        method: 'POST',
        url: `/admin/workspaces/${ws.id}/keys`,
        headers: admin,
        payload: { name: 'k', scopes: ['linksWrite', 'collectionsWrite', 'tagsRead'] },
      })
    ).json();
    const [collection] = (await inject({ method: 'POST', url: '/api/collections', headers: bearer(key), payload: [{ name: 'c' }] })).json();
    const password = 'correct-horse-battery-staple';
    const [link] = (
      await inject({
        method: 'POST',
        url: '/api/links',
        headers: bearer(key),
        payload: [{ url: 'https://example.com/', collectionId: collection.id, password }],
      })
    ).json();
    await inject({ method: 'GET', url: '/api/tags', headers: { 'x-api-key': key } });
    await inject({ method: 'GET', url: '/api/tags', headers: { authorization: key, 'x-api-key': `${key}x` } });
    await inject({ method: 'GET', url: '/api/links', headers: bearer(key) }); // 403: lacks linksRead
    const path = new URL(link.shortUrl).pathname;
    await inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `password=${password}` });
    await inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'password=wrong-guess-123' });

    expect(lines.length).toBeGreaterThan(0);
    expect(lines).not.toContain(key);
    expect(lines).not.toContain(key.slice(3)); // not even without its prefix
    expect(lines).not.toContain(ADMIN_TOKEN);
    expect(lines).not.toContain(password);
    expect(lines).not.toContain('wrong-guess-123');
    const completed = lines
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'request completed' && l.url === '/api/tags');
    expect(completed.length).toBeGreaterThan(0);
    for (const l of completed) expect(l.reqId).toBeTruthy();
    expect(completed.some((l) => l.workspaceId === ws.id)).toBe(true);
  });

  test("never a person's password, session, human token, nor an app's secret, code or tokens (OAuth)", async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const ws = (await inject({ method: 'POST', url: '/admin/workspaces', headers: admin, payload: { name: 'log people', plan: 'pro' } })).json();
    const password = 'a-person-password-for-logs';
    const email = `log-${Date.now()}@example.com`;
    const user = (await inject({ method: 'POST', url: '/admin/users', headers: admin, payload: { email, name: 'Log', password } })).json();
    await inject({ method: 'POST', url: `/admin/workspaces/${ws.id}/members`, headers: admin, payload: { userId: user.id, role: 'owner' } });
    await inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: 'a-wrong-password-for-logs' } });
    const login = await inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const session = cookie.split('=')[1]!;
    const human = (
      await inject({ method: 'POST', url: '/api/me/tokens', headers: { cookie }, payload: { name: 't', workspaceId: ws.id, scopes: ['linksRead'] } })
    ).json().token as string;
    await inject({ method: 'GET', url: '/api/links', headers: bearer(human) });
    const app = (
      await inject({
        method: 'POST',
        url: `/api/workspaces/${ws.id}/oauth-apps`,
        headers: { cookie },
        payload: { name: 'Logged app', redirectUris: ['https://app.example/cb'], confidential: true, scopes: ['linksRead'] },
      })
    ).json();
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: 'https://app.example/cb',
      scope: 'linksRead',
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    await inject({ method: 'GET', url: `/oauth/authorize?${params}`, headers: { cookie } });
    const allowed = await inject({
      method: 'POST',
      url: '/oauth/authorize',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://lt.test' },
      payload: `${params}&workspaceId=${ws.id}&decision=allow`,
    });
    const code = new URL(String(allowed.headers.location)).searchParams.get('code')!;
    const form = {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
    };
    const tokens = (
      await inject({
        method: 'POST',
        url: '/oauth/token',
        headers: form,
        payload: `grant_type=authorization_code&code=${code}&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&code_verifier=${verifier}`,
      })
    ).json();
    await inject({ method: 'GET', url: '/api/links', headers: bearer(tokens.access_token) });
    const refreshed = (
      await inject({ method: 'POST', url: '/oauth/token', headers: form, payload: `grant_type=refresh_token&refresh_token=${tokens.refresh_token}` })
    ).json();
    await inject({
      method: 'POST',
      url: '/oauth/token',
      headers: form,
      payload: `grant_type=authorization_code&code=${code}&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&code_verifier=${verifier}`,
    });
    await inject({ method: 'POST', url: '/oauth/revoke', headers: form, payload: `token=${refreshed.access_token}` });
    await inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie } });

    const secrets = {
      password,
      session,
      human,
      clientSecret: app.clientSecret,
      code,
      access: tokens.access_token,
      refresh: tokens.refresh_token,
      access2: refreshed.access_token,
      verifier,
    };
    for (const [name, secret] of Object.entries(secrets)) {
      expect(typeof secret === 'string' && secret.length > 20, name).toBe(true);
      expect(lines.includes(secret), `${name} in the logs`).toBe(false);
    }
    expect(lines).not.toContain('a-wrong-password-for-logs');
    // The requests were logged at all (so the check above looked at something).
    expect(lines).toContain('/oauth/token');
    expect(lines).toContain('/oauth/authorize');
  });
  test('never the password, the lt_mfa cookie or a session of the passkey flows', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const password = 'a-passkey-person-password-for-logs';
    const email = `log-passkey-${Date.now()}@example.com`;
    await inject({ method: 'POST', url: '/admin/users', headers: admin, payload: { email, name: 'Log', password } });
    const cookieOf = (res: { headers: Record<string, unknown> }, name: RegExp) =>
      [res.headers['set-cookie']]
        .flat()
        .map(String)
        .find((c) => name.test(c))!
        .split(';')[0]!;
    const first = cookieOf(await inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } }), /lt_session=/);
    const auth = new SoftAuthenticator();
    const options = (
      await inject({ method: 'POST', url: '/api/me/passkeys/options', headers: { cookie: first }, payload: { password } })
    ).json<CreationOptions>();
    expect(
      (
        await inject({
          method: 'POST',
          url: '/api/me/passkeys',
          headers: { cookie: first },
          payload: { response: auth.register(options, { origin: 'https://lt.test' }) },
        })
      ).statusCode,
    ).toBe(201);
    const mfa = cookieOf(await inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } }), /lt_mfa=/);
    const second = (
      await inject({ method: 'POST', url: '/api/auth/passkey/options', headers: { cookie: mfa }, payload: { secondFactor: true } })
    ).json<RequestOptions>();
    const bySecond = await inject({
      method: 'POST',
      url: '/api/auth/passkey',
      headers: { cookie: mfa },
      payload: { response: auth.assert(second, { origin: 'https://lt.test' }) },
    });
    const alone = (await inject({ method: 'POST', url: '/api/auth/passkey/options', payload: {} })).json<RequestOptions>();
    const byAlone = await inject({ method: 'POST', url: '/api/auth/passkey', payload: { response: auth.assert(alone, { origin: 'https://lt.test' }) } });
    const secrets = {
      password,
      first: first.split('=')[1],
      mfa: mfa.split('=')[1],
      second: cookieOf(bySecond, /lt_session=/).split('=')[1],
      alone: cookieOf(byAlone, /lt_session=/).split('=')[1],
    };
    for (const [name, secret] of Object.entries(secrets)) {
      expect(typeof secret === 'string' && secret.length > 20, name).toBe(true);
      expect(lines.includes(secret!), `${name} in the logs`).toBe(false);
    }
    expect(lines).toContain('/api/auth/passkey');
    expect(lines).toContain('/api/me/passkeys/options');
  });

  test('the audit log (operations.md §15) keeps ids, never the secrets a change answers with, nor a tried password; neither do the logs', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const ws = (await inject({ method: 'POST', url: '/admin/workspaces', headers: admin, payload: { name: 'log audit', plan: 'pro' } })).json();
    const password = 'an-audited-owner-password';
    const email = `audit-log-${Date.now()}@example.com`;
    const user = (await inject({ method: 'POST', url: '/admin/users', headers: admin, payload: { email, name: 'Audit', password } })).json();
    await inject({ method: 'POST', url: `/admin/workspaces/${ws.id}/members`, headers: admin, payload: { userId: user.id, role: 'owner' } });
    await inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: 'a-wrong-audited-password' } });
    const cookie = String((await inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } })).headers['set-cookie']).split(';')[0]!;
    const made = (
      await inject({
        method: 'POST',
        url: `/api/workspaces/${ws.id}/keys`,
        headers: { cookie },
        payload: { name: 'audited', scopes: ['webhooksWrite', 'linksRead'] },
      })
    ).json();
    const hook = (
      await inject({
        method: 'POST',
        url: '/api/webhooks',
        headers: bearer(made.key),
        payload: { url: 'https://93.184.215.14/hook', events: ['link.created'] },
      })
    ).json();
    const rolled = (await inject({ method: 'POST', url: `/api/webhooks/${hook.id}/secret`, headers: bearer(made.key) })).json();
    const headers = { cookie, 'x-workspace-id': ws.id };
    const log = await inject({ method: 'GET', url: '/api/audit-log', headers });
    const csv = await inject({ method: 'GET', url: '/api/audit-log?format=csv', headers });
    expect(
      log.json<{ action: string }[]>().map((e) => e.action),
      JSON.stringify([hook, rolled]),
    ).toContain('webhook.secret_rotated');
    const secrets = { key: made.key as string, hookSecret: hook.secret as string, rolled: rolled.secret as string, password };
    for (const [name, secret] of Object.entries(secrets)) {
      expect(typeof secret === 'string' && secret.length > 20, name).toBe(true);
      for (const [where, text] of [
        ['logs', lines],
        ['audit log', log.body],
        ['audit CSV', csv.body],
      ])
        expect(text!.includes(secret), `${name} in the ${where}`).toBe(false);
    }
    for (const text of [lines, log.body, csv.body]) expect(text).not.toContain('a-wrong-audited-password');
  });

  test('never an SSO client secret, authorization code, ID token, state, nor the lt_sso cookie', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const idp = await startProvider({ redirectUri: 'https://lt.test/api/auth/sso/callback' });
    try {
      const ws = (await inject({ method: 'POST', url: '/admin/workspaces', headers: admin, payload: { name: 'log sso', plan: 'pro' } })).json();
      const password = 'an-owner-password-for-sso-logs';
      const email = `log-sso-${Date.now()}@example.com`;
      const user = (await inject({ method: 'POST', url: '/admin/users', headers: admin, payload: { email, name: 'Log', password } })).json();
      await inject({ method: 'POST', url: `/admin/workspaces/${ws.id}/members`, headers: admin, payload: { userId: user.id, role: 'owner' } });
      const cookie = String((await inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } })).headers['set-cookie']).split(';')[0]!;
      const domain = `sso-log-${Date.now()}.test`;
      const put = await inject({
        method: 'PUT',
        url: '/api/sso',
        headers: { cookie, 'x-workspace-id': ws.id },
        payload: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, domains: [domain], role: 'member' },
      });
      expect(put.statusCode, put.body).toBe(200);
      await inject({ method: 'POST', url: `/admin/workspaces/${ws.id}/sso/domains/${domain}/verify`, headers: admin });
      idp.accounts.set('logged', { email: `logged@${domain}`, email_verified: true });
      const secrets: Record<string, string> = { clientSecret: idp.clientSecret };
      for (const round of [1, 2]) {
        // From the service's own sign-in page (another site's link gets the confirmation page).
        const started = await inject({ method: 'GET', url: `/api/auth/sso?workspace=${ws.id}`, headers: { 'sec-fetch-site': 'same-origin' } });
        const ssoCookie = String(started.headers['set-cookie']).split(';')[0]!;
        const authorizationUrl = new URL(String(started.headers.location));
        const callback = await new Browser().authorize(authorizationUrl.href, 'logged');
        const done = await inject({ method: 'GET', url: `${callback.pathname}${callback.search}`, headers: { cookie: ssoCookie } });
        expect(done.statusCode, done.body).toBe(302);
        // The same callback again: refused, and logged as a refusal.
        await inject({ method: 'GET', url: `${callback.pathname}${callback.search}`, headers: { cookie: ssoCookie } });
        Object.assign(secrets, {
          [`state${round}`]: authorizationUrl.searchParams.get('state')!,
          [`nonce${round}`]: authorizationUrl.searchParams.get('nonce')!,
          [`challenge${round}`]: authorizationUrl.searchParams.get('code_challenge')!,
          [`code${round}`]: callback.searchParams.get('code')!,
          [`ssoCookie${round}`]: ssoCookie.split('=')[1]!,
          [`session${round}`]: String(done.headers['set-cookie']).split(';')[0]!.split('=')[1]!,
        });
      }
      idp.idTokens.forEach((token, i) => (secrets[`idToken${i}`] = token));
      expect(idp.idTokens.length).toBe(2);
      for (const [name, secret] of Object.entries(secrets)) {
        expect(typeof secret === 'string' && secret.length > 20, name).toBe(true);
        expect(lines.includes(secret), `${name} in the logs`).toBe(false);
      }
      expect(lines).toContain('/api/auth/sso/callback');
    } finally {
      await idp.stop();
    }
  });
});
