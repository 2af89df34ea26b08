import type { Conn } from '../../db/connect.js';
import { lacksRequiredSecondFactor, type CredentialKind, type SecondFactorCheck } from '../../http/auth.js';
import type { CredentialCache } from '../../infra/credential-cache.js';
import { TOKEN_PREFIX } from './secret.js';
import { authenticateToken, type TokenFound } from './service.js';

/** Human tokens (operations.md §8): sent like an API key, acting in their workspace for their user. */
export function humanTokenCredential(db: Conn, cache: CredentialCache<TokenFound>, hasSecondFactor: SecondFactorCheck): CredentialKind {
  return {
    name: 'humanToken',
    recognises: (token) => token.startsWith(TOKEN_PREFIX),
    async resolve(token, now) {
      const p = await authenticateToken({ ctx: { db, now }, input: { token }, deps: { lookup: (key, load) => cache.lookup(key, load, now.getTime()) } });
      return {
        kind: 'humanToken',
        actor: { type: 'user', userId: p.userId, tokenId: p.tokenId },
        bound: { workspace: p.workspace, scopes: p.scopes, secondFactorMissing: await lacksRequiredSecondFactor(p.workspace, p.userId, hasSecondFactor, now) },
      };
    },
  };
}
