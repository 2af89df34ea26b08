/** The public shorteners' hosts (core/public-shorteners.ts) and the reader's creation-date range (build-row.ts). */
import { describe, expect, it } from 'vitest';
import { isPublicShortenerHost, PUBLIC_SHORTENER_HOSTS } from '../../../src/core/public-shorteners.js';
import { readAll } from './read.js';

describe('isPublicShortenerHost', () => {
  it('is true for each listed host, its subdomains, any case and a trailing dot', () => {
    for (const host of PUBLIC_SHORTENER_HOSTS) expect(isPublicShortenerHost(host), host).toBe(true);
    expect(isPublicShortenerHost('BIT.LY')).toBe(true);
    expect(isPublicShortenerHost('www.bit.ly')).toBe(true);
    expect(isPublicShortenerHost('t.co.')).toBe(true);
  });

  it('is false for a custom domain, a look-alike and a host that merely ends the same way', () => {
    for (const host of ['brand.link', 'bit.ly.example.com', 'mybit.ly', 'art.co', 'notbitly.com', 'example.com'])
      expect(isPublicShortenerHost(host), host).toBe(false);
  });
});

describe('a creation date read from a file', () => {
  const file = (date: string) => `url,createdAt\r\nhttps://example.com/a,${date}\r\n`;

  it('from 2000-01-01 to now is kept as the row createdAt', async () => {
    const [r] = await readAll(file('2000-01-01T00:00:00Z'), { source: 'csv' });
    expect(r).toMatchObject({ ok: true, row: { createdAt: '2000-01-01T00:00:00.000Z' } });
    expect(r!.ok && r!.row.warnings).toBeUndefined();
  });

  it.each(['1999-12-31T23:59:59Z', '2999-01-01', '0'])('%s is not kept: the row stays, with a warning naming the date', async (date) => {
    const [r] = await readAll(file(date), { source: 'csv' });
    expect(r!.ok).toBe(true);
    if (!r!.ok) return;
    expect(r!.row.createdAt).toBeUndefined();
    expect(r!.row.warnings).toEqual([
      { field: 'createdAt', reason: 'import_date_range', message: { en: expect.stringContaining('before 2000 or in the future'), ar: expect.any(String) } },
    ]);
  });

  it('a cell that is no date still fails the row', async () => {
    const [r] = await readAll(file('yesterday'), { source: 'csv' });
    expect(r).toMatchObject({ ok: false, field: 'createdAt', reason: 'import_date' });
  });
});
