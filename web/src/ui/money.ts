/**
 * Sale amounts as the API keeps them — minor units of a lowercase ISO 4217 code — written in
 * the page's language. One place, so a sale on /conversions, on a link's page and the
 * overview's revenue read the same way.
 */

const money = new Map<string, Intl.NumberFormat | null>();
const plain = new Map<string, Intl.NumberFormat>();

function moneyFormat(lang: string, code: string): Intl.NumberFormat | null {
  const key = `${lang}/${code}`;
  if (!money.has(key)) {
    try {
      money.set(key, new Intl.NumberFormat(lang, { style: 'currency', currency: code }));
    } catch {
      money.set(key, null);
    }
  }
  return money.get(key)!;
}

/**
 * Minor units summed over currencies (the analytics totals: currencies are not converted), or
 * of a currency this browser does not know: a plain amount with two decimals.
 */
export function formatMinor(lang: string, minor: number): string {
  let f = plain.get(lang);
  if (!f) plain.set(lang, (f = new Intl.NumberFormat(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 })));
  return f.format(minor / 100);
}

/**
 * Minor units of one currency as money in that currency, with the currency's own number of
 * decimals: 1999 usd is $19.99, 500 jpy is ¥500, 1234 kwd is KWD 1.234. A code this browser
 * does not know: the plain amount and the code.
 */
export function formatMoney(lang: string, minor: number, currency: string): string {
  const code = currency.toUpperCase();
  const f = moneyFormat(lang, code);
  if (!f) return `${formatMinor(lang, minor)} ${code}`;
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  return f.format(minor / 10 ** digits);
}
