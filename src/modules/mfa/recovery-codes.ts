import { randomBytes } from 'node:crypto';

/** Ten codes of 10 base32 letters and digits (50 random bits each), shown as xxxxx-xxxxx. */
export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

export function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => ALPHABET[b & 31]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}

/** The form codes are stored and compared in: lower case, no dash or spaces. */
export const normalizeRecoveryCode = (code: string): string => code.toLowerCase().replace(/[\s-]/g, '');

export const looksLikeRecoveryCode = (code: string): boolean => /^[a-z2-9]{10}$/.test(normalizeRecoveryCode(code));
