/** `linktrail sso verify-domain`: the operator vouches for a single sign-on domain from the command line. */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { run } from '../../../src/cli/main.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../../helpers/app.js';
import type { TestProvider } from '../../helpers/oidc-provider.js';
import { asSession } from '../people/helpers.js';
import { newProvider, ssoWorkspace, uniqueDomain } from './helpers.js';

let t: TestApp;
let idp: TestProvider;
let url: string;
beforeAll(async () => {
  t = await startTestApp({ env: { SSO_ALLOWED_CIDRS: '127.0.0.1/32' } });
  await t.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.runtime.app.server.address() as AddressInfo).port}`;
  idp = await newProvider();
});
afterAll(async () => {
  await idp.stop();
  await t.close();
});

const cli = async (...args: string[]) => {
  let out = '';
  await run([...args, '--url', url], { ADMIN_TOKEN }, (s) => (out += s));
  return out;
};

test('verifies the domain, which then shows as verified; an unknown domain is a clear failure', async () => {
  const domain = uniqueDomain();
  const { workspace, owner } = await ssoWorkspace(t, idp, { domains: [domain], verify: false });
  const out = await cli('sso', 'verify-domain', workspace.id, '--domain', domain);
  expect(out).toMatch(new RegExp(`${domain.replace(/\./g, '\\.')}\\s+true`));
  const got = await asSession(t, owner.cookie, 'GET', '/api/sso', undefined, { workspaceId: workspace.id });
  expect(got.json<{ domains: { verified: boolean }[] }>().domains[0]!.verified).toBe(true);
  await expect(cli('sso', 'verify-domain', workspace.id, '--domain', 'other.test')).rejects.toThrow(/other\.test/);
  await expect(cli('sso', 'verify-domain', workspace.id)).rejects.toThrow(/--domain/);
});
