import { secretFormat, sha256 } from '../../core/secret.js';

export { sameHash } from '../../core/secret.js';

/** `lt_` followed by 43 characters: 256 bits of entropy, recognisable at a glance; lists show 11 characters. */
export const KEY_PREFIX = 'lt_';
const format = secretFormat(KEY_PREFIX, 11);

export function generateKey(): { key: string; hash: Buffer; prefix: string } {
  const { value, hash, shownPrefix } = format.generate();
  return { key: value, hash, prefix: shownPrefix };
}

export const isWellFormedKey = format.isWellFormed;
export const hashKey = sha256;
