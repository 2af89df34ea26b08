import { describe, expect, it } from 'vitest';
import { isRetryableConflict, retryOnConflict } from '../../src/core/transaction.js';

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });
/** As drizzle wraps a driver error: the code is on `cause`. */
const wrapped = (code: string) => Object.assign(new Error('Failed query: …'), { cause: pgError(code) });

describe('retryOnConflict', () => {
  it('runs again after a deadlock or a serialization failure, bare or wrapped, and answers the run that succeeds', async () => {
    for (const failure of [pgError('40P01'), wrapped('40P01'), pgError('40001'), wrapped('40001')]) {
      let runs = 0;
      const answer = await retryOnConflict(async () => {
        runs++;
        if (runs < 3) throw failure;
        return 'written';
      });
      expect(answer).toBe('written');
      expect(runs).toBe(3);
    }
  });

  it('gives up after its tries with the last error, and never runs again for any other error', async () => {
    let runs = 0;
    await expect(
      retryOnConflict(async () => {
        runs++;
        throw wrapped('40P01');
      }, 4),
    ).rejects.toMatchObject({ cause: { code: '40P01' } });
    expect(runs).toBe(4);
    for (const other of [pgError('23505'), wrapped('57P01'), new Error('plain'), undefined]) {
      runs = 0;
      await expect(
        retryOnConflict(async () => {
          runs++;
          throw other;
        }),
      ).rejects.toBe(other);
      expect(runs).toBe(1);
      expect(isRetryableConflict(other)).toBe(false);
    }
  });
});
