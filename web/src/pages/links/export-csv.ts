/**
 * The Links export's text: the link's columns with names beside ids, then the figures columns: the range's clicks, leads and sales, and net revenue
 * per currency (one column each, `revenue_usd`: amounts of different currencies are never added),
 * written as plain decimals in the currency's own unit (19.99, 500 for yen) so a spreadsheet sums
 * them. Pure functions, tested without a browser.
 */
import { majorUnits } from '../../ui/money.js';
import { toCsv } from './csv.js';
import { COLUMNS, linkToRow, type Names } from './rows.js';
import type { LinkRow } from './stats.js';

/** The currencies of the rows' revenue, sorted. */
function revenueCurrencies(rows: readonly LinkRow[]): string[] {
  return [...new Set(rows.flatMap((r) => Object.keys(r.stats?.revenue ?? {})))].sort();
}

/** The figures' column names for these currencies. */
export const statsColumns = (currencies: readonly string[]): string[] => ['clicks', 'leads', 'sales', ...currencies.map((c) => `revenue_${c}`)];

/** A row's figures under statsColumns (empty revenue cells: no sale in that currency). */
export function statsCells(row: LinkRow, currencies: readonly string[]): string[] {
  const st = row.stats;
  if (!st) return statsColumns(currencies).map(() => '');
  return [
    String(st.clicks),
    String(st.leads),
    String(st.sales),
    ...currencies.map((c) => (st.revenue[c] === undefined ? '' : majorUnits(Number(st.revenue[c]), c))),
  ];
}

/** The export's text: the columns of COLUMNS, then, `withStats`, the figures of each link. */
export function linksCsv(links: readonly LinkRow[], names: Names, withStats: boolean): string {
  const currencies = withStats ? revenueCurrencies(links) : [];
  const header = [...COLUMNS, ...(withStats ? statsColumns(currencies) : [])];
  const records = links.map((l) => [...linkToRow(l, names), ...(withStats ? statsCells(l, currencies) : [])]);
  // A byte-order mark, so spreadsheets read the file as UTF-8 (Arabic titles).
  return '\uFEFF' + toCsv([header, ...records], COLUMNS.length);
}
