import { sql, type SQL } from 'drizzle-orm';
import { CONTINENT_OF } from './continents.js';

/**
 * Dimension filters of GET /api/analytics (extension): the key of a breakdown row, as that
 * groupBy writes it, so a client filters a view by clicking a row. '(unknown)' and '(none)'
 * select the clicks without a value, as the rows name them.
 */
export const DIMENSION_FILTERS = {
  country: 'country',
  continent: 'continent',
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

const UNKNOWN_IF_MISSING: ReadonlySet<string> = new Set(['country', 'device', 'browser', 'os', 'referrer']);

/** A raw row's value of a column dimension, as analytics_keys() stores it (migration 0010). */
export function columnValue(dim: ColumnDim | 'link' | 'partner', a: string): SQL {
  if (dim === 'link') return sql.raw(`${a}.link_id::text`);
  if (dim === 'partner') return sql.raw(`COALESCE(${a}.partner_id::text, '(none)')`);
  if (dim === 'trigger') return sql.raw(`COALESCE(${a}.trigger, 'link')`);
  return sql.raw(`COALESCE(${a}.${dim}, '${UNKNOWN_IF_MISSING.has(dim) ? '(unknown)' : '(none)'}')`);
}

const KNOWN_COUNTRIES = Object.keys(CONTINENT_OF);

/** The countries of a continent (undefined for '(unknown)': the countries of none). */
export function countriesOf(continent: string): string[] | undefined {
  if (continent === '(unknown)') return undefined;
  return KNOWN_COUNTRIES.filter((c) => CONTINENT_OF[c] === continent);
}

const jsonList = (values: string[]) => sql`(SELECT value FROM jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;

/** The condition a raw click, lead or sale row `a` of the workspace meets under a filter. */
export function rawFilter(f: DimensionFilter, a: string, workspaceId: string): SQL {
  const link = sql.raw(`${a}.link_id`);
  switch (f.by) {
    case 'collection':
      return sql`${link} IN (SELECT id FROM links WHERE workspace_id = ${workspaceId}::uuid AND collection_id = ${f.value}::uuid)`;
    case 'tag':
      return sql`${link} IN (SELECT t.link_id FROM link_tags t JOIN links l ON l.id = t.link_id WHERE l.workspace_id = ${workspaceId}::uuid AND t.tag_id = ${f.value}::uuid)`;
    case 'continent': {
      const countries = countriesOf(f.value);
      const country = columnValue('country', a);
      return countries ? sql`${country} IN ${jsonList(countries)}` : sql`${country} NOT IN ${jsonList(KNOWN_COUNTRIES)}`;
    }
    default:
      return sql`${columnValue(f.by, a)} = ${f.value}`;
  }
}

/**
 * The rollup dimension and value condition that select exactly a filter's clicks, when one
 * exists (a column, or a known continent's countries); collections and tags have none.
 */
export function rollupFilter(f: DimensionFilter): { dim: ColumnDim; match: SQL } | undefined {
  if (f.by === 'collection' || f.by === 'tag') return undefined;
  if (f.by === 'continent') {
    const countries = countriesOf(f.value);
    return countries ? { dim: 'country', match: sql`r.value IN ${jsonList(countries)}` } : undefined;
  }
  return { dim: f.by, match: sql`r.value = ${f.value}` };
}
