/**
 * The analytics view as a CSV report (operations.md §14, Reports), loaded only when asked
 * for: the time series and each card's chosen breakdown, asked again of GET /api/analytics
 * with the view's query (filters and comparison), so the file holds what the API answers;
 * written by report-csv.ts.
 */
import { api } from '../../api/client.js';
import type { AnalyticsQuery } from './breakdown.js';
import { rowLabel, type Dimension } from './breakdown.js';
import type { Formats } from './format.js';
import type { Group } from './metrics.js';
import type { Interval } from './range.js';
import { reportRecords, toCsv, type ReportHeader, type Section } from './report-csv.js';
import type { Strings } from './strings.js';

export interface ReportInput {
  query: AnalyticsQuery;
  interval: Interval;
  /** Each card's shown dimension, with the card's title. */
  breakdowns: { title: string; dim: Dimension }[];
  header: ReportHeader;
  /** A time bucket's key in words. */
  bucketName: (key: string) => string;
  s: Strings;
  f: Formats;
}

const BREAKDOWN_ROWS = 100;

/** Asks the API for every section of the view and writes the CSV. */
export async function buildReport(input: ReportInput): Promise<string> {
  const { query, interval, breakdowns, header, bucketName, s, f } = input;
  const ask = async (groupBy: NonNullable<AnalyticsQuery['groupBy']>, extra: Partial<AnalyticsQuery>) => {
    const r = await api.GET('/api/analytics', { params: { query: { ...query, groupBy, ...extra } } });
    if (r.error) throw r.error;
    return r.data as Group[];
  };
  const [series, ...cards] = await Promise.all([
    ask('timeseries', { interval, sort: 'asc', take: 5000 }),
    ...breakdowns.map((b) => ask(b.dim, { take: BREAKDOWN_ROWS })),
  ]);
  const sections: Section[] = [
    { name: s.time, groupBy: 'timeseries', rows: series!, label: (g) => bucketName(g.key) },
    ...breakdowns.map((b, i) => ({
      name: `${b.title}: ${s[b.dim]}`,
      groupBy: b.dim,
      rows: cards[i]!,
      label: (g: Group) => rowLabel(b.dim, g, s, f.lang).text,
    })),
  ];
  return '\uFEFF' + toCsv(reportRecords(sections, header, query.compare !== undefined, s, new Date().toISOString()));
}
