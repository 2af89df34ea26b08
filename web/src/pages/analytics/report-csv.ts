/**
 * The CSV report's records (operations.md §14, Reports), pure so they are tested without a
 * browser: a few records naming the report, its range, time zone, filters and comparison, then
 * one heading record and one record per group. Every record has as many fields as the widest
 * (a well-formed table). Money stays per currency: one column per currency, in major units,
 * never added together.
 */
import { majorUnits } from '../../ui/money.js';
import { guardFormula } from '../links/csv.js';
import { currenciesOf, hasVisitors } from './figures.js';
import type { components } from '../../api/schema.js';
import type { Strings } from './strings.js';

type Group = components['schemas']['AnalyticsGroup'];

export type Cell = string | number;

/** What the view shows, in words, for the report's first records. */
export interface ReportHeader {
  range: string;
  timeZone: string;
  filters: string[];
  comparison: string;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** One field as RFC 4180 writes it; text that a spreadsheet would run as a formula gets a leading quote (a plain number stays one). */
export function csvField(value: Cell): string {
  if (typeof value === 'number') return String(value);
  const text = DECIMAL.test(value) ? value : guardFormula(value);
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Records as CSV text, CRLF after each, each padded to the widest record. */
export function toCsv(records: readonly Cell[][]): string {
  const width = Math.max(0, ...records.map((r) => r.length));
  return records.map((r) => [...r, ...Array<Cell>(width - r.length).fill('')].map(csvField).join(',') + '\r\n').join('');
}

export interface Section {
  name: string;
  groupBy: string;
  rows: Group[];
  label: (g: Group) => string;
}

/** The report's records: header records, the heading, then every group of every section. */
export function reportRecords(sections: Section[], header: ReportHeader, compare: boolean, s: Strings, generated: string): Cell[][] {
  const all = sections.flatMap((x) => x.rows);
  const visitors = hasVisitors(all);
  // The earlier period's visitors, when the API gives them with the comparison.
  const earlierVisitors = compare && hasVisitors(all.map((g) => g.previous ?? {}));
  const codes = currenciesOf(Object.assign({}, ...all.map((g) => g.revenue)), compare ? Object.assign({}, ...all.map((g) => g.previous?.revenue ?? {})) : {});
  const money = (prefix: string) => codes.map((c) => `${prefix}${s.revenue} (${c.toUpperCase()})`);
  const heading: Cell[] = [
    s.dimension,
    'groupBy',
    s.key,
    s.label,
    s.clicks,
    ...(visitors ? [s.visitors] : []),
    s.leads,
    s.sales,
    ...money(''),
    ...(compare
      ? [
          `${s.earlier}: ${s.clicks}`,
          ...(earlierVisitors ? [`${s.earlier}: ${s.visitors}`] : []),
          `${s.earlier}: ${s.leads}`,
          `${s.earlier}: ${s.sales}`,
          ...money(`${s.earlier}: `),
        ]
      : []),
  ];
  const records: Cell[][] = [
    [s.report],
    [s.range, header.range],
    [s.timeZone, header.timeZone],
    [s.filters, header.filters.length ? header.filters.join('; ') : s.noFilters],
    [s.compare, header.comparison],
    [s.generated, generated],
    heading,
  ];
  for (const x of sections) {
    for (const g of x.rows) {
      const p = g.previous;
      records.push([
        x.name,
        x.groupBy,
        g.key,
        x.label(g),
        g.clicks,
        ...(visitors ? [g.visitors ?? 0] : []),
        g.leads,
        g.sales,
        ...codes.map((c) => majorUnits(Number(g.revenue[c] ?? 0), c)),
        ...(compare
          ? [
              p?.clicks ?? 0,
              ...(earlierVisitors ? [(p as { visitors?: number }).visitors ?? 0] : []),
              p?.leads ?? 0,
              p?.sales ?? 0,
              ...codes.map((c) => majorUnits(Number(p?.revenue[c] ?? 0), c)),
            ]
          : []),
      ]);
    }
  }
  return records;
}
