import type { Conn } from '../../db/connect.js';
import type { CredentialKind } from '../../http/auth.js';
import { KEY_PREFIX } from './secret.js';
import { authenticateKey, type KeyCache } from './service.js';

/** API keys, sent in the Authorization or X-API-Key header. */
export function apiKeyCredential(db: Conn, cache?: KeyCache): CredentialKind {
  return {
    name: 'apiKey',
    // A token no kind recognises is reported as malformed by the resolver.
    recognises: (token) => token.startsWith(KEY_PREFIX),
    resolve: (token, now) => authenticateKey({ ctx: { db, now }, input: { key: token }, deps: { cache } }),
  };
}
