/**
 * Amounts as analytics answers them: exact integers of minor units, a number while it is a safe
 * integer and a bigint beyond (written as plain JSON digits), and per currency a map from the
 * lower-case ISO 4217 code to such an amount. Amounts of different currencies are never added.
 */

export type Amount = number | bigint;
export type Money = Record<string, Amount>;

export function exactBig(sum: bigint): Amount {
  return sum <= BigInt(Number.MAX_SAFE_INTEGER) && sum >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(sum) : sum;
}

/** A sum the database computed exactly (numeric, as text), kept exact. */
export function exactSum(text: string): Amount {
  return exactBig(BigInt(text));
}

/** One source row's money as the database writes it: [currency, net amount, refunded amount], amounts as exact numeric text. */
export type MoneyEntry = [currency: string, net: string, refunded: string];

/** Entries added up per currency, exactly; currencies in code order. */
export function moneyOf(entries: MoneyEntry[]): { revenue: Money; refunded: Money } {
  const sums = new Map<string, [bigint, bigint]>();
  for (const [currency, net, refunded] of entries) {
    const s = sums.get(currency) ?? [0n, 0n];
    sums.set(currency, [s[0] + BigInt(net), s[1] + BigInt(refunded)]);
  }
  const codes = [...sums.keys()].sort();
  return {
    revenue: Object.fromEntries(codes.map((c) => [c, exactBig(sums.get(c)![0])])),
    refunded: Object.fromEntries(codes.map((c) => [c, exactBig(sums.get(c)![1])])),
  };
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
