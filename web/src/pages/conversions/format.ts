/**
 * A sale amount (minor units of a lowercase ISO 4217 code, as the API stores it) in the page's
 * language, in the sale's own currency: 1999 usd is $19.99, 500 jpy is ¥500, 1234 kwd 1.234.
 */
export function formatAmount(lang: 'en' | 'ar', amount: number, currency: string): string {
  const code = currency.toUpperCase();
  try {
    const money = new Intl.NumberFormat(lang, { style: 'currency', currency: code });
    const digits = money.resolvedOptions().maximumFractionDigits ?? 2;
    return money.format(amount / 10 ** digits);
  } catch {
    // A code this browser does not know: the number in minor units and the code, as stored.
    return `${new Intl.NumberFormat(lang).format(amount)} ${code}`;
  }
}

/** Start and end of local dates (YYYY-MM-DD) as instants, so the range is the viewer's days. */
export function startOfDay(date: string): string {
  return new Date(`${date}T00:00:00`).toISOString();
}
export function endOfDay(date: string): string {
  return new Date(`${date}T23:59:59.999`).toISOString();
}
