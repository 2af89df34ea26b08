import type { Conn } from '../../db/connect.js';
import type { CredentialKind } from '../../http/auth.js';
import type { CredentialCache } from '../../infra/credential-cache.js';
import { ACCESS, authenticateAccessToken, type AccessFound } from './service.js';

/** OAuth access tokens (operations.md §9): sent like an API key; an app acting for a user in the consented workspace. */
export function oauthAccessCredential(db: Conn, cache: CredentialCache<AccessFound>): CredentialKind {
  return {
    name: 'oauth',
    recognises: (token) => token.startsWith(ACCESS.prefix),
    async resolve(token, now) {
      const t = await authenticateAccessToken({ ctx: { db, now }, input: { token }, deps: { lookup: (key, load) => cache.lookup(key, load, now.getTime()) } });
      return {
        kind: 'oauth',
        actor: { type: 'app', appId: t.appId, userId: t.userId, tokenId: t.tokenId, grantId: t.grantId },
        bound: { workspace: t.workspace, scopes: t.scopes },
      };
    },
  };
}
