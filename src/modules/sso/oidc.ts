import { createHmac } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { BlockedAddressError, type GuardedFetch } from '../../infra/safe-fetch.js';

/**
 * The relying party, on oauth4webapi: discovery, the authorization URL (code flow, PKCE S256,
 * state, nonce), and the code exchange whose ID token is checked — signature against the
 * provider's JWKS, issuer, audience, expiry, nonce. Every request goes through `fetch`, the
 * outbound guard, so an issuer can only be where the operator allows.
 */
export interface RelyingParty {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  fetch: GuardedFetch;
  /** Seconds the service's clock is ahead of this machine's (tests move the clock). */
  clockSkew?: number;
}

/** Why the provider could not be used: unreachable, refused by the guard, or not an OpenID provider. */
export class ProviderUnavailable extends Error {
  constructor(
    readonly problem: string,
    readonly blockedAddress?: string,
  ) {
    super(problem);
  }
}

/** Why a callback was refused: what the ID token or the answer got wrong (no secret in it). */
export class SignInRefused extends Error {}

const httpOptions = (rp: RelyingParty) => ({
  [oauth.customFetch]: rp.fetch as never,
  // http only reaches an issuer the guard allows over http (inside SSO_ALLOWED_CIDRS).
  [oauth.allowInsecureRequests]: rp.issuer.startsWith('http:'),
});

const client = (rp: RelyingParty): oauth.Client => ({ client_id: rp.clientId, [oauth.clockSkew]: rp.clockSkew ?? 0 });

/** The provider's metadata (its issuer must be exactly the one configured). */
export async function discover(rp: Pick<RelyingParty, 'issuer' | 'fetch'>): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(rp.issuer);
  try {
    const res = await oauth.discoveryRequest(issuer, httpOptions(rp as RelyingParty));
    return await oauth.processDiscoveryResponse(issuer, res);
  } catch (err) {
    throw unavailable(err);
  }
}

function unavailable(err: unknown): ProviderUnavailable {
  if (err instanceof ProviderUnavailable) return err;
  const cause = (err as { cause?: unknown }).cause;
  const blocked = err instanceof BlockedAddressError ? err : cause instanceof BlockedAddressError ? cause : undefined;
  if (blocked) return new ProviderUnavailable(`${blocked.address} is not an address the server may reach`, blocked.address);
  const code = (err as { code?: string }).code;
  if (code === 'ECONNREFUSED') return new ProviderUnavailable('connection refused');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new ProviderUnavailable('name not resolved');
  return new ProviderUnavailable(String((err as Error).message ?? err).slice(0, 200));
}

/** PKCE verifier and nonce of a sign-in, derived from the browser's secret (never stored). */
export function derivedSecrets(browserSecret: string): { verifier: string; nonce: string } {
  const mac = (label: string) => createHmac('sha256', browserSecret).update(label).digest('base64url');
  return { verifier: mac('pkce-verifier'), nonce: mac('nonce') };
}

export async function authorizationUrl(
  as: oauth.AuthorizationServer,
  rp: RelyingParty,
  o: { state: string; browserSecret: string; loginHint?: string },
): Promise<string> {
  if (!as.authorization_endpoint) throw new ProviderUnavailable('no authorization endpoint');
  const { verifier, nonce } = derivedSecrets(o.browserSecret);
  const url = new URL(as.authorization_endpoint);
  url.searchParams.set('client_id', rp.clientId);
  url.searchParams.set('redirect_uri', rp.redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', 'openid email');
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', o.state);
  url.searchParams.set('nonce', nonce);
  if (o.loginHint) url.searchParams.set('login_hint', o.loginHint);
  return url.href;
}

/**
 * The callback's query to the ID token's claims: the state matches, the code is exchanged with
 * the PKCE verifier and the client secret, and the ID token passes every check.
 */
export async function exchange(
  as: oauth.AuthorizationServer,
  rp: RelyingParty,
  o: { query: URLSearchParams; state: string; browserSecret: string },
): Promise<oauth.IDToken> {
  const { verifier, nonce } = derivedSecrets(o.browserSecret);
  const c = client(rp);
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(as, c, o.query, o.state);
  } catch (err) {
    throw new SignInRefused(describe(err));
  }
  let res: Response;
  try {
    res = await oauth.authorizationCodeGrantRequest(as, c, oauth.ClientSecretBasic(rp.clientSecret), params, rp.redirectUri, verifier, httpOptions(rp));
  } catch (err) {
    throw unavailable(err);
  }
  try {
    const result = await oauth.processAuthorizationCodeResponse(as, c, res, { expectedNonce: nonce, requireIdToken: true });
    await oauth.validateApplicationLevelSignature(as, res, httpOptions(rp));
    const claims = oauth.getValidatedIdTokenClaims(result);
    if (!claims) throw new SignInRefused('no ID token');
    return claims;
  } catch (err) {
    if (err instanceof SignInRefused) throw err;
    if (isNetwork(err)) throw unavailable(err);
    throw new SignInRefused(describe(err));
  }
}

const isNetwork = (err: unknown) =>
  err instanceof BlockedAddressError ||
  ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET'].includes(String((err as { code?: string }).code)) ||
  (err as Error).message === 'timeout';

/** What went wrong, in words fit for a log line and a page: never a token or a code. */
function describe(err: unknown): string {
  if (err instanceof oauth.AuthorizationResponseError) return `the provider answered ${err.error}`;
  if (err instanceof oauth.ResponseBodyError) return `the provider answered ${err.error}`;
  const e = err as { code?: string; message?: string };
  return `${e.code ?? 'error'}: ${String(e.message ?? '').slice(0, 160)}`;
}
