/**
 * A real OpenID provider (the `oidc-provider` package) on 127.0.0.1 and a random port, for the
 * single sign-on tests: one confidential client (PKCE required), its own RS256 key, accounts
 * whose claims the test sets (`accounts.set(sub, { email, email_verified })`), the package's own
 * login and consent pages (any password signs in the typed login, which is the `sub`), and a hook
 * that rewrites the ID token of the next token answer (re-signed with the provider's key, or with
 * another key) for the refusal tests.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import Provider from 'oidc-provider';

export interface AccountClaims {
  email: string;
  email_verified: boolean;
  name?: string;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, AccountClaims>;
  /** The ID tokens the provider handed out, in order (for the logging test). */
  idTokens: string[];
  /** Rewrites the ID token of the next token answer; `otherKey` signs it with a key the provider never published. */
  tamperNextIdToken(change: (claims: JWTPayload) => JWTPayload, o?: { otherKey?: boolean }): void;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startProvider(o: { redirectUri: string; clientId?: string }): Promise<TestProvider> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const other = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const clientId = o.clientId ?? `client-${Math.random().toString(36).slice(2)}`;
  const clientSecret = `secret-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
  const accounts = new Map<string, AccountClaims>();
  const idTokens: string[] = [];
  let tamper: { change: (c: JWTPayload) => JWTPayload; otherKey: boolean } | undefined;

  let handler: http.RequestListener = (_req, res) => res.end();
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [o.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    jwks: { keys: [jwk as never] },
    cookies: { keys: ['test-cookie-key-0123456789'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified', 'name'] },
    // Real providers (Google, Entra ID, Okta) put the e-mail in the ID token: so does this one.
    conformIdTokenClaims: false,
    findAccount: (_ctx: unknown, sub: string) => {
      const claims = accounts.get(sub);
      return claims ? { accountId: sub, claims: () => ({ sub, ...claims }) } : undefined;
    },
  } as never);

  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path !== '/token' || ctx.status !== 200) return;
    const body = ctx.body as { id_token?: string };
    if (!body?.id_token) return;
    idTokens.push(body.id_token);
    if (!tamper) return;
    const { change, otherKey } = tamper;
    tamper = undefined;
    const header = decodeProtectedHeader(body.id_token);
    const claims = change(decodeJwt(body.id_token));
    body.id_token = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: header.kid }).sign(otherKey ? other.privateKey : privateKey);
  });
  handler = provider.callback();

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    idTokens,
    tamperNextIdToken(change, opts = {}) {
      tamper = { change, otherKey: opts.otherKey ?? false };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    start: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
  };
}

/** A tiny cookie jar and redirect follower for the provider's pages (as a browser would). */
export class Browser {
  private readonly jar = new Map<string, string>();

  async get(url: string): Promise<Response> {
    return this.send(url, { method: 'GET' });
  }

  async post(url: string, form: Record<string, string>): Promise<Response> {
    return this.send(url, { method: 'POST', body: new URLSearchParams(form), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }

  private async send(url: string, init: RequestInit): Promise<Response> {
    const cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) } });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/max-age=0|expires=Thu, 01 Jan 1970/i.test(set) || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return res;
  }

  /**
   * From the provider's authorization URL to the redirect back to us: signs in as `login` on the
   * provider's login page and approves its consent page. Returns the URL the provider sent the
   * browser to (our callback, with `code` and `state`, or an error).
   */
  async authorize(authorizationUrl: string, login: string): Promise<URL> {
    let res = await this.get(authorizationUrl);
    for (let i = 0; i < 12; i++) {
      const location = res.headers.get('location');
      if (location) {
        const next = new URL(location, res.url || authorizationUrl);
        if (!next.href.startsWith(new URL(authorizationUrl).origin)) return next;
        res = await this.get(next.href);
        continue;
      }
      const html = await res.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      if (!action) throw new Error(`no form on the provider's page (${res.status}): ${html.slice(0, 400)}`);
      const target = new URL(action.replace(/&amp;/g, '&'), new URL(authorizationUrl).origin).href;
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
      res = await this.post(target, prompt === 'login' ? { prompt, login, password: 'any' } : { prompt: prompt ?? 'consent' });
    }
    throw new Error('too many steps at the provider');
  }
}
