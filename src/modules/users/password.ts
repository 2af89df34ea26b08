import { hash, verify } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';
import { invalid } from '../../core/errors.js';

/** operations.md §7: 8–256 characters, compared unmodified (no trimming, no normalisation). */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

// The 49,000 most common passwords of zxcvbn-ts's list (MIT), compared ignoring case.
const COMMON = new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));

// argon2id (the library's default algorithm) with OWASP's third configuration: 12 MiB, 3 passes,
// 1 lane — the same strength as its 19 MiB / 2 passes, measured faster on this machine: 20
// verifications at once took 154–170 ms against 183–222 ms, which keeps 20 simultaneous logins
// under the 300 ms p99 target on 2 cores. Stored hashes carry their parameters, so older ones
// still verify.
const OPTIONS = { memoryCost: 12_288, timeCost: 3, parallelism: 1 };

/** Throws a 400 naming `field` when a new password breaks the rules. */
export function checkNewPassword(password: string, field = 'password'): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN) throw invalid(field, 'min_length', { limit: PASSWORD_MIN });
  if (length > PASSWORD_MAX) throw invalid(field, 'max_length', { limit: PASSWORD_MAX });
  if (COMMON.has(password.toLowerCase())) throw invalid(field, 'common_password');
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** Constant-time inside argon2; false for a malformed stored hash instead of throwing. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** A hash of a password nobody has, verified when the email is unknown so both cost the same. */
let decoy: Promise<string> | undefined;
export const decoyHash = (): Promise<string> => (decoy ??= hashPassword('decoy password that is never a real one'));
