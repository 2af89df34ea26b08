import { AppError } from '../../core/errors.js';
import { columnsOf, detectDelimiter } from './csv-file.js';
import { IMPORT_FIELDS, type CsvSource as ImportSource, type ImportField } from './row.js';

/**
 * Which columns feed which field, per source. Column names compare by `columnKey` (case, spaces,
 * `_`, `-` and `.` ignored), so `long_url`, `Long URL` and `longUrl` are one name. Where a field
 * lists several columns, the first one with a value in a row wins (Bitly's custom back-half over
 * its bit.ly link). Where each format is documented is said beside it.
 */
type Guesses = Partial<Record<ImportField, readonly string[]>>;

const UTM = {
  utm_source: ['utm_source'],
  utm_medium: ['utm_medium'],
  utm_campaign: ['utm_campaign'],
  utm_term: ['utm_term'],
  utm_content: ['utm_content'],
} as const;

/** operations.md §13: a CSV of anyone's, columns found by name. */
const CSV: Guesses = {
  url: ['url', 'long_url', 'destination', 'target'],
  title: ['title'],
  description: ['description'],
  // tagIds, collectionId: the dashboard's links export (ids are names too: resolve-names.ts).
  tags: ['tags', 'tagIds'],
  collection: ['collection', 'collectionId'],
  ...UTM,
  externalId: ['externalId'],
  shortUrl: ['short_url', 'link'],
  keyword: ['keyword', 'slug'],
  domain: ['domain'],
  createdAt: ['createdAt', 'created'],
};

/**
 * Bitly: the app's export (Links → Export) names `Link`, `Custom Link` and `Destination URL`
 * (URLR's migration guide, docs.urlr.me/migration/bitly); the v4 API's Bitlink object
 * (dev.bitly.com, GET /v4/groups/{group_guid}/bitlinks, and its CSV export `links_list`) names
 * `link`, `custom_bitlinks`, `long_url`, `title`, `tags`, `created_at` (`2020-10-26T17:20:40+0000`).
 */
const BITLY: Guesses = {
  url: ['long_url', 'destination_url', 'original_url'],
  title: ['title'],
  tags: ['tags'],
  shortUrl: ['custom_link', 'custom_bitlinks', 'link', 'bitlink'],
  createdAt: ['created_at', 'date_created', 'created'],
};

/**
 * Dub: GET /api/links/export writes the labels of `exportLinksColumns` (dubinc/dub,
 * apps/web/lib/zod/schemas/links.ts): `Short link`, `Destination URL`, `Clicks`, `Created at`
 * (ISO 8601), optionally `Link ID`, `Updated at`, `Tags` (joined by ", "), `Archived`…
 */
const DUB: Guesses = {
  url: ['destination_url'],
  tags: ['tags'],
  shortUrl: ['short_link'],
  createdAt: ['created_at'],
};

/**
 * Shlink: the web client's "Export" of short URLs (shlinkio/shlink-web-component,
 * src/short-urls/helpers/ExportShortUrlsBtn.tsx, written by @json2csv/plainjs): `createdAt`
 * (ATOM, `2024-05-01T12:20:30+02:00`), `domain`, `shortCode`, `shortUrl`, `longUrl`, `title`,
 * `tags` (joined by "|"), `visits`.
 */
const SHLINK: Guesses = {
  url: ['longUrl'],
  title: ['title'],
  tags: ['tags'],
  shortUrl: ['shortUrl'],
  keyword: ['shortCode'],
  domain: ['domain'],
  createdAt: ['createdAt', 'dateCreated'],
};

/**
 * Rebrandly has no export in its app: links are exported through its API, one column per field of
 * the Link object (developers.rebrandly.com/docs/link-entity): `id`, `title`, `slashtag`,
 * `destination`, `shortUrl` (without scheme, `rebrand.ly/burn10M`), `domain` / `domain.fullName`,
 * `createdAt` (`2016-07-13T10:54:12.000Z`), `description`.
 */
const REBRANDLY: Guesses = {
  url: ['destination'],
  title: ['title'],
  description: ['description'],
  tags: ['tags'],
  shortUrl: ['shortUrl'],
  keyword: ['slashtag'],
  domain: ['domain.fullName', 'domainName', 'domain'],
  createdAt: ['createdAt'],
};

export const SOURCE_COLUMNS: Record<ImportSource, Guesses> = { csv: CSV, bitly: BITLY, dub: DUB, shlink: SHLINK, rebrandly: REBRANDLY };

/** A column name as compared: `Long URL`, `long_url` and `longUrl` are one. */
export function columnKey(name: string): string {
  return name.toLowerCase().replace(/[\s_\-.]+/g, '');
}

/** Columns each named source's export always has; the first source whose set is all there wins. */
const SIGNATURES: readonly [ImportSource, readonly (readonly string[])[]][] = [
  ['shlink', [['shortCode', 'longUrl']]],
  ['rebrandly', [['slashtag', 'destination']]],
  ['dub', [['short_link', 'destination_url']]],
  ['bitly', [['custom_link'], ['custom_bitlinks'], ['bitlink'], ['long_url', 'link'], ['link', 'destination_url']]],
];

/** The source a header line looks like, `csv` when none. */
export function detectSource(headerLine: string): ImportSource {
  const line = headerLine.replace(/^\uFEFF/, '').split(/\r?\n|\r/, 1)[0] ?? '';
  return sourceOfColumns(columnsOf(line, detectDelimiter(line)));
}

/** The source whose export has these columns, `csv` when none. */
export function sourceOfColumns(columns: readonly string[]): ImportSource {
  const keys = new Set(columns.map(columnKey));
  for (const [source, alternatives] of SIGNATURES) {
    if (alternatives.some((names) => names.every((n) => keys.has(columnKey(n))))) return source;
  }
  return 'csv';
}

/** For each field, the indexes of the columns that feed it, in order of preference. */
export type ColumnPlan = Partial<Record<ImportField, number[]>>;

function indexesOf(columns: readonly string[], names: readonly string[]): number[] {
  const keys = columns.map(columnKey);
  const found: number[] = [];
  for (const name of names) {
    const at = keys.indexOf(columnKey(name));
    if (at >= 0 && !found.includes(at)) found.push(at);
  }
  return found;
}

const FIELD_BY_KEY = new Map<string, ImportField>(IMPORT_FIELDS.map((f) => [columnKey(f), f]));

function mappedField(ourField: string): ImportField {
  const field = FIELD_BY_KEY.get(columnKey(ourField));
  if (!field) throw new AppError('import_unknown_field', { field: `mapping.${ourField}`, reasonCode: 'enum', fields: IMPORT_FIELDS.join(', ') });
  return field;
}

function mappedColumn(columns: readonly string[], field: string, column: string): number {
  const exact = columns.indexOf(column);
  const at = exact >= 0 ? exact : columns.map(columnKey).indexOf(columnKey(column));
  if (at < 0) throw new AppError('import_unknown_column', { field: `mapping.${field}`, reasonCode: 'enum', column, columns: columns.join(', ') });
  return at;
}

/** Which columns feed which field: the source's guesses, overridden by `mapping` (`""`: none). Throws header errors. */
export function planColumns(columns: readonly string[], source: ImportSource, mapping: Record<string, string> = {}): ColumnPlan {
  const plan: ColumnPlan = {};
  for (const [field, names] of Object.entries(SOURCE_COLUMNS[source]) as [ImportField, readonly string[]][]) {
    const found = indexesOf(columns, names);
    if (found.length > 0) plan[field] = found;
  }
  for (const [ourField, column] of Object.entries(mapping)) {
    const field = mappedField(ourField);
    // An empty column name switches a guessed field off (the file's `id` is not our externalId…).
    if (column === '') delete plan[field];
    else plan[field] = [mappedColumn(columns, ourField, column)];
  }
  if (!plan.url) {
    const expected = (SOURCE_COLUMNS[source].url ?? []).map((n) => `"${n}"`).join(', ');
    throw new AppError('import_no_destination', { source, expected, columns: columns.join(', ') || '(none)' });
  }
  return plan;
}
