/**
 * Amounts in a currency's minor unit, written in major units for people and payment providers.
 *
 * The exponents are ISO 4217's "minor unit" column (List One, the current codes, as published by
 * SIX for ISO: https://www.six-group.com/en/products-services/financial-information/data-standards.html),
 * for the codes of src/modules/conversions/currencies.ts. Only the codes that differ from 2 are
 * listed. ICU/CLDR's display digits are not used: they differ on purpose (ISK, IQD, RSD…), and
 * amounts here are stored in ISO's unit (operations.md §18). XDR and XSU have no minor unit in
 * ISO ("N.A."); they take the default 2.
 */

const ZERO_DIGITS = 'bif clp djf gnf isk jpy kmf krw pyg rwf ugx vnd vuv xaf xof xpf';
const THREE_DIGITS = 'bhd iqd jod kwd lyd omr tnd';

const EXPONENTS: ReadonlyMap<string, number> = new Map([
  ...ZERO_DIGITS.split(' ').map((code) => [code, 0] as const),
  ...THREE_DIGITS.split(' ').map((code) => [code, 3] as const),
]);

/** Digits after the decimal point in the currency's major unit: 2 unless ISO 4217 says otherwise. */
export function minorUnitDigits(currency: string): number {
  return EXPONENTS.get(currency.toLowerCase()) ?? 2;
}

/**
 * An amount of minor units as an exact decimal in major units: 12345 usd → "123.45", 5 jpy → "5",
 * -7 usd → "-0.07", 1234 kwd → "1.234". Digits only, no grouping, "." as the separator; a number
 * must be a safe integer (past 2^53 pass a bigint), so no float ever rounds it.
 */
export function formatMajor(amount: bigint | number, currency: string): string {
  if (typeof amount === 'number' && !Number.isSafeInteger(amount)) {
    throw new RangeError(`formatMajor: ${amount} is not a safe integer of minor units`);
  }
  const minor = BigInt(amount);
  const digits = minorUnitDigits(currency);
  const sign = minor < 0n ? '-' : '';
  const abs = (minor < 0n ? -minor : minor).toString();
  if (digits === 0) return `${sign}${abs}`;
  const padded = abs.padStart(digits + 1, '0');
  return `${sign}${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}
