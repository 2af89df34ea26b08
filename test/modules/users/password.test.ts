import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { checkNewPassword, hashPassword, verifyPassword } from '../../../src/modules/users/password.js';

const reasonOf = (password: string): string | undefined => {
  try {
    checkNewPassword(password);
    return undefined;
  } catch (err) {
    return (err as AppError).params.reasonCode as string;
  }
};

describe('password rules (operations.md §7)', () => {
  test.each([
    ['short', 'min_length'],
    ['1234567', 'min_length'],
    ['password', 'common_password'],
    ['PassWord1', 'common_password'],
    ['12345678', 'common_password'],
    ['x'.repeat(257), 'max_length'],
    ['correct horse battery staple', undefined],
    ['Ünïcödé-päss', undefined],
    ['😀😀😀😀😀😀😀😀', undefined],
    ['x'.repeat(256), undefined],
  ])('%s → %s', (password, reason) => {
    expect(reasonOf(password)).toBe(reason);
  });

  test('lengths are counted in characters, not UTF-16 units: 8 emoji are 8 characters, 4 are too few', () => {
    expect(reasonOf('😀😀😀😀')).toBe('min_length');
  });
});

describe('argon2id hashes', () => {
  test('verify the password unmodified and nothing else; the hash never contains it', async () => {
    const stored = await hashPassword(' Spaces matter ');
    expect(stored).toMatch(/^\$argon2id\$/);
    expect(stored).not.toContain('Spaces');
    expect(await verifyPassword(stored, ' Spaces matter ')).toBe(true);
    expect(await verifyPassword(stored, 'Spaces matter')).toBe(false);
    expect(await verifyPassword(stored, ' spaces matter ')).toBe(false);
    expect(await verifyPassword('not a hash', 'x')).toBe(false);
  });

  test('property: a password verifies against its own hash only', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ minLength: 1, maxLength: 40 }), async (a, b) => {
        const stored = await hashPassword(a);
        expect(await verifyPassword(stored, a)).toBe(true);
        expect(await verifyPassword(stored, b)).toBe(a === b);
      }),
      { numRuns: 15 },
    );
  });
});
