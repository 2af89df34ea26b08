/**
 * `maxDuration` counts calendar months in UTC from the customer's first earning sale for the
 * partner: a later sale earns while it is earlier than that instant plus the months.
 */

const MAX_MONTHS = 1200;

/**
 * The instant `months` calendar months after `firstSaleAt`, in UTC, at the same time of day; a
 * day the target month lacks becomes its last day (Jan 31 + 1 month = Feb 28, or 29 in a leap year).
 */
export function maxDurationEnd(firstSaleAt: Date, months: number): Date {
  if (!Number.isInteger(months) || months < 0 || months > MAX_MONTHS) throw new RangeError(`maxDurationEnd: months must be an integer 0..${MAX_MONTHS}`);
  if (Number.isNaN(firstSaleAt.getTime())) throw new RangeError('maxDurationEnd: invalid date');
  const monthIndex = firstSaleAt.getUTCFullYear() * 12 + firstSaleAt.getUTCMonth() + months;
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex % 12;
  const lastDay = daysInMonth(year, month);
  const end = new Date(firstSaleAt.getTime());
  // setUTCFullYear with all three parts at once: setting them one by one could overflow through a short month.
  end.setUTCFullYear(year, month, Math.min(firstSaleAt.getUTCDate(), lastDay));
  return end;
}

function daysInMonth(year: number, month: number): number {
  const probe = new Date(0);
  probe.setUTCFullYear(year, month + 1, 0); // day 0 of the next month: the month's last day (Date.UTC would read year 99 as 1999)
  return probe.getUTCDate();
}

/**
 * Whether a sale earns under a reward's `maxDuration`. `isFirstSale`: this sale is the customer's
 * first earning sale for the partner (then `firstSaleAt` is its own time) — it always earns, even
 * with `maxDuration` 0; asked apart so that a later sale stored in the same millisecond does not.
 * Absent `maxDuration`: every sale earns.
 */
export function earnsWithinDuration(firstSaleAt: Date, saleAt: Date, maxDuration: number | undefined, isFirstSale: boolean): boolean {
  if (isFirstSale || maxDuration === undefined) return true;
  return saleAt.getTime() < maxDurationEnd(firstSaleAt, maxDuration).getTime();
}
