/**
 * Amounts as analytics answers them: exact integers of minor units, a number while it is a safe
 * integer and a bigint beyond (written as plain JSON digits), and per currency a map from the
 * lower-case ISO 4217 code to such an amount. Amounts of different currencies are never added.
 */

export type Amount = number | bigint;
export type Money = Record<string, Amount>;
/** A map as the database writes it: each amount as the text of an exact numeric. */
export type TextMoney = Record<string, string>;

export function exactBig(sum: bigint): Amount {
  return sum <= BigInt(Number.MAX_SAFE_INTEGER) && sum >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(sum) : sum;
}

/** A sum the database computed exactly (numeric, as text), kept exact. */
export function exactSum(text: string): Amount {
  return exactBig(BigInt(text));
}

/** A map of the database (null: no currency at all) with its amounts kept exact. */
export function exactMoney(text: TextMoney | null): Money {
  const out: Money = {};
  for (const [currency, amount] of Object.entries(text ?? {})) out[currency] = exactSum(amount);
  return out;
}

/** Two maps added currency by currency. */
export function addMoney(a: Money, b: Money): Money {
  const out: Money = { ...a };
  for (const [currency, amount] of Object.entries(b)) out[currency] = exactBig(BigInt(out[currency] ?? 0) + BigInt(amount));
  return sortedMoney(out);
}

/** The map with its currencies in code order (as the database writes them). */
function sortedMoney(m: Money): Money {
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
