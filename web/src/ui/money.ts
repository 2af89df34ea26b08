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

/** Minor units of a currency this browser does not know: a plain amount with two decimals. */
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
export function formatMoney(lang: string, minor: number | bigint, currency: string): string {
  const code = currency.toUpperCase();
  const f = moneyFormat(lang, code);
  if (!f) return `${formatMinor(lang, Number(minor))} ${code}`;
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  // A BigInt sum (past 2^53) goes in as an exact decimal string, which Intl formats without a float (ES2023).
  const amount = typeof minor === 'bigint' ? (decimalText(minor, digits) as unknown as number) : minor / 10 ** digits;
  if (!RTL.has(lang.split('-')[0]!)) return f.format(amount);
  // Right to left, a Latin symbol's trailing sign would be moved before its letters ("$US"): isolated left to right, it stays "US$".
  return f
    .formatToParts(amount)
    .map((p) => (p.type === 'currency' && /[A-Za-z]/.test(p.value) ? `\u2066${p.value}\u2069` : p.value))
    .join('');
}

/** Minor units as an exact decimal of `digits` places: (-5n, 2) → "-0.05". */
function decimalText(minor: bigint, digits: number): string {
  const sign = minor < 0n ? '-' : '';
  const abs = String(minor < 0n ? -minor : minor);
  if (digits === 0) return sign + abs;
  const padded = abs.padStart(digits + 1, '0');
  return `${sign}${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}

/** Languages written right to left (of those the dashboard may be shown in). */
const RTL = new Set(['ar', 'he', 'fa', 'ur']);

/** Amounts per currency (lower-case ISO 4217 code → minor units), as the analytics API gives them. */
export type ByCurrency = Record<string, number>;

/** Several per-currency amounts added currency by currency (never one currency into another). */
export function addByCurrency(...parts: ByCurrency[]): ByCurrency {
  const sum: ByCurrency = {};
  for (const part of parts) for (const [code, minor] of Object.entries(part)) sum[code] = (sum[code] ?? 0) + Number(minor);
  return sum;
}

/**
 * Amounts in several currencies as a list of totals, one per currency in code order:
 * "$49.00 · €20.00". No currency at all (no sales): a dash.
 */
export function formatByCurrency(lang: string, amounts: ByCurrency): string {
  const codes = Object.keys(amounts).sort();
  if (codes.length === 0) return '—';
  return codes.map((code) => formatMoney(lang, Number(amounts[code]), code)).join(' · ');
}

/** Decimals of a currency's minor unit (2 when this browser does not know the code, as formatMinor writes it). */
function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/**
 * Minor units as a plain decimal of the currency's unit, exactly (string arithmetic, no float):
 * 4900 usd → "49.00", -50 usd → "-0.50", 500 jpy → "500", 1234 kwd → "1.234". For CSV files.
 */
export function majorUnits(minor: number, currency: string): string {
  const digits = currencyDigits(currency);
  if (digits === 0) return String(minor);
  const sign = minor < 0 ? '-' : '';
  const abs = String(Math.abs(minor)).padStart(digits + 1, '0');
  return `${sign}${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
}

/** Arabic-Indic and Persian digits, and the Arabic decimal separator, as the ASCII a number is read from. */
function asciiDigits(text: string): string {
  return text
    .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(/[\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) - 0x06f0))
    .replace(/\u066b/g, '.');
}

/**
 * A typed decimal as an integer of `digits` decimal places, exactly (string arithmetic, no
 * float): ("12.5", 2) → 1250, ("0.01", 2) → 1, ("7", 0) → 7. Arabic digits and a comma or the
 * Arabic separator as the decimal point are read too. Undefined for anything else: a sign, more
 * decimals than `digits`, thousands separators, an empty text, or more than 15 digits.
 */
export function parseScaled(text: string, digits: number): number | undefined {
  const match = /^(\d*)(?:[.,](\d*))?$/.exec(asciiDigits(text.trim()));
  if (!match) return undefined;
  const [, whole = '', fraction = ''] = match;
  if (whole === '' && fraction === '') return undefined;
  if (fraction.length > digits) return undefined;
  const joined = (whole + fraction.padEnd(digits, '0')).replace(/^0+(?=\d)/, '');
  if (joined.length > 15) return undefined;
  return Number(joined);
}

/**
 * An amount typed in the currency's major unit as its minor units, exactly: "5" usd → 500,
 * "0.10" usd → 10, "500" jpy → 500, "1.234" kwd → 1234; "1.234" usd (too many decimals) → undefined.
 */
export function parseMajor(text: string, currency: string): number | undefined {
  return parseScaled(text, currencyDigits(currency));
}
