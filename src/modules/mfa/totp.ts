import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as operations.md §15 fixes it: SHA-1, 6 digits, 30-second steps, a 20-byte seed. */
const PERIOD_S = 30;

export const newSeed = (): string => new Secret({ size: 20 }).base32;

const totpOf = (seed: string, label = 'Linktrail') =>
  new TOTP({ issuer: 'Linktrail', label, algorithm: 'SHA1', digits: 6, period: PERIOD_S, secret: Secret.fromBase32(seed) });

/** The otpauth:// URL an authenticator app reads (as a QR code or pasted). */
export const otpauthUrl = (seed: string, email: string): string => totpOf(seed, email).toString();

/** The code of `at` (tests and the enrolment check). */
export const codeAt = (seed: string, at: number): string => totpOf(seed).generate({ timestamp: at });

export const stepOf = (at: number): number => Math.floor(at / 1000 / PERIOD_S);

/**
 * The step whose code `code` is, if it is the current step's or the previous one's (a code typed
 * as its step ends); undefined otherwise. The caller refuses a step already used.
 */
export function matchingStep(seed: string, code: string, at: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totpOf(seed).validate({ token: code, timestamp: at, window: 1 });
  if (delta === null || delta > 0) return undefined;
  return stepOf(at) + delta;
}
