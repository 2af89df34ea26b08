/**
 * Commissions added up per currency, never across currencies (operations.md §18: totals are
 * per currency). BigInt, since a workspace's sum may pass 2^53 minor units.
 */
export function totalsByCurrency(rows: readonly { currency: string; earnings: number }[]): Map<string, bigint> {
  const totals = new Map<string, bigint>();
  for (const r of rows) totals.set(r.currency, (totals.get(r.currency) ?? 0n) + BigInt(r.earnings));
  return new Map([...totals].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
