import { sql, type SQL } from 'drizzle-orm';
import { countriesOf, KNOWN_COUNTRIES, type ColumnDim, type DimensionFilter } from './dimensions.js';

/** The SQL conditions of the dimension filters (dimensions.ts), shared by the click and group stores. */

const UNKNOWN_IF_MISSING: ReadonlySet<string> = new Set(['country', 'region', 'city', 'device', 'browser', 'os', 'referrer']);

/** A raw row's value of a column dimension, as analytics_keys() stores it (migration 0010). */
export function columnValue(dim: ColumnDim | 'link' | 'partner' | 'variant', a: string): SQL {
  if (dim === 'link') return sql.raw(`${a}.link_id::text`);
  if (dim === 'variant') return sql.raw(`COALESCE(${a}.variant::text, '(none)')`);
  if (dim === 'partner') return sql.raw(`COALESCE(${a}.partner_id::text, '(none)')`);
  if (dim === 'trigger') return sql.raw(`COALESCE(${a}.trigger, 'link')`);
  return sql.raw(`COALESCE(${a}.${dim}, '${UNKNOWN_IF_MISSING.has(dim) ? '(unknown)' : '(none)'}')`);
}

const jsonList = (values: string[]) => sql`(SELECT value FROM jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;

/** The condition a raw click, lead or sale row `a` of the workspace meets under a filter. */
export function rawFilter(f: DimensionFilter, a: string, workspaceId: string): SQL {
  const link = sql.raw(`${a}.link_id`);
  switch (f.by) {
    // links and link_tags are the links module's tables: read in the same statement, not through its service, so a filtered read stays one query.
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
