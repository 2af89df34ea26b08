import { CONTINENT_OF } from './continents.js';

/** What GET /api/analytics may group by (groupBy). */
export const GROUP_BYS = [
  'timeseries',
  'country',
  'continent',
  'region',
  'city',
  'device',
  'browser',
  'os',
  'referrer',
  'referrer_url',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'trigger',
  'link',
  'collection',
  'tag',
  'partner',
  'variant',
] as const;
export type GroupBy = (typeof GROUP_BYS)[number];
export type Interval = 'hour' | 'day' | 'month';

/**
 * Dimension filters of GET /api/analytics (extension): the key of a breakdown row, as that
 * groupBy writes it, so a client filters a view by clicking a row. '(unknown)' and '(none)'
 * select the clicks without a value, as the rows name them.
 */
export const DIMENSION_FILTERS = {
  country: 'country',
  continent: 'continent',
  region: 'region',
  city: 'city',
  device: 'device',
  browser: 'browser',
  os: 'os',
  referrer: 'referrer',
  referrerUrl: 'referrer_url',
  utmSource: 'utm_source',
  utmMedium: 'utm_medium',
  utmCampaign: 'utm_campaign',
  utmTerm: 'utm_term',
  utmContent: 'utm_content',
  trigger: 'trigger',
  collectionId: 'collection',
  tagId: 'tag',
} as const;
export type DimensionParam = keyof typeof DIMENSION_FILTERS;
export type DimensionBy = (typeof DIMENSION_FILTERS)[DimensionParam];

/** A column kept on clicks, leads and sales (and a rollup dimension of the same name). */
export type ColumnDim = Exclude<DimensionBy, 'continent' | 'collection' | 'tag'>;

export interface DimensionFilter {
  by: DimensionBy;
  value: string;
}

/** The filters a query names, in a fixed order. */
export function dimensionFilters(q: Partial<Record<DimensionParam, string>>): DimensionFilter[] {
  const found: DimensionFilter[] = [];
  for (const [param, by] of Object.entries(DIMENSION_FILTERS) as [DimensionParam, DimensionBy][]) {
    const value = q[param];
    if (value !== undefined) found.push({ by, value });
  }
  return found;
}

export const KNOWN_COUNTRIES = Object.keys(CONTINENT_OF);

/** The countries of a continent (undefined for '(unknown)': the countries of none). */
export function countriesOf(continent: string): string[] | undefined {
  if (continent === '(unknown)') return undefined;
  return KNOWN_COUNTRIES.filter((c) => CONTINENT_OF[c] === continent);
}
