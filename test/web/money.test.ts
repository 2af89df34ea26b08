import { describe, expect, it } from 'vitest';
import { addByCurrency, formatByCurrency, formatMoney } from '../../web/src/ui/money.js';

describe('money on the dashboard', () => {
  it('writes minor units with the currency symbol and its own number of decimals', () => {
    expect(formatMoney('en', 4900, 'usd')).toBe('$49.00');
    expect(formatMoney('en', 500, 'jpy')).toBe('¥500');
    expect(formatMoney('en', 1234, 'kwd')).toBe('KWD\u00a01.234');
  });

  it('writes a mixed total as one total per currency, never one sum', () => {
    const total = addByCurrency({ usd: 4900 }, { eur: 2000, usd: 100 }, {});
    expect(total).toEqual({ usd: 5000, eur: 2000 });
    expect(formatByCurrency('en', total)).toBe('€20.00 · $50.00');
  });

  it('writes the totals in Arabic the same way, each amount with its own symbol', () => {
    const text = formatByCurrency('ar', { usd: 4900, eur: 2000 });
    expect(text).toBe(`${formatMoney('ar', 2000, 'eur')} · ${formatMoney('ar', 4900, 'usd')}`);
    expect(text.replace(/[\u2066\u2069]/g, '')).toBe(
      `${new Intl.NumberFormat('ar', { style: 'currency', currency: 'EUR' }).format(20)} · ${new Intl.NumberFormat('ar', { style: 'currency', currency: 'USD' }).format(49)}`,
    );
    // The digits are whichever the ICU data gives Arabic; the symbols and the separate totals are ours.
    expect(text).toMatch(/^[^·]*€[^·]* · [^·]*US\$[^·]*$/);
    // Right to left, a symbol with Latin letters is isolated left to right (else it shows as "$US").
    expect(text).toContain('\u2066US$\u2069');
    expect(formatMoney('ar', 2000, 'eur')).not.toMatch(/[\u2066\u2069]/);
  });

  it('shows no sales as a dash and a currency the browser does not know with its code', () => {
    expect(formatByCurrency('en', {})).toBe('—');
    expect(formatMoney('en', 1999, 'zz1')).toBe('19.99 ZZ1');
  });
});
