import type { Conn } from '../../db/connect.js';
import { lacksRequiredSecondFactor, type CredentialKind, type SecondFactorCheck } from '../../http/auth.js';
import type { CredentialCache } from '../../infra/credential-cache.js';
import { ACCESS, authenticateAccessToken, type AccessFound } from './service.js';

/** OAuth access tokens (operations.md §9): sent like an API key; an app acting for a user in the consented workspace. */
export function oauthAccessCredential(db: Conn, cache: CredentialCache<AccessFound>, hasSecondFactor: SecondFactorCheck): CredentialKind {
  return {
    name: 'oauth',
    recognises: (token) => token.startsWith(ACCESS.prefix),
    async resolve(token, now) {
      const t = await authenticateAccessToken({ ctx: { db, now }, input: { token }, deps: { lookup: (key, load) => cache.lookup(key, load, now.getTime()) } });
      return {
        kind: 'oauth',
        actor: { type: 'app', appId: t.appId, userId: t.userId, tokenId: t.tokenId, grantId: t.grantId },
        // The person the app acts for: their second factor, as for their own requests.
        bound: { workspace: t.workspace, scopes: t.scopes, secondFactorMissing: await lacksRequiredSecondFactor(t.workspace, t.userId, hasSecondFactor, now) },
      };
    },
  };
}
