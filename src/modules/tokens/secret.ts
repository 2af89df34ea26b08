import { secretFormat, sha256 } from '../../core/secret.js';

export { sameHash } from '../../core/secret.js';

/** `ltp_` ("personal") and 43 characters: told apart from keys (`lt_`) at a glance; lists show `ltp_` and 8 characters. */
export const TOKEN_PREFIX = 'ltp_';
const format = secretFormat(TOKEN_PREFIX, 12);

export function generateToken(): { token: string; hash: Buffer; prefix: string } {
  const { value, hash, shownPrefix } = format.generate();
  return { token: value, hash, prefix: shownPrefix };
}

export const isWellFormedToken = format.isWellFormed;
export const hashToken = sha256;
