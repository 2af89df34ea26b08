import type { paths } from '../../api/schema.js';

/** The import routes' records (operations.md §13), as the OpenAPI document types them. */
export type Preview = paths['/api/imports/preview']['post']['responses'][200]['content']['application/json'];
export type PreviewRow = Preview['rows'][number];
export type ImportJob = paths['/api/imports/{id}']['get']['responses'][200]['content']['application/json'];
export type ImportQuery = NonNullable<paths['/api/imports']['post']['parameters']['query']>;
export type ImportSource = NonNullable<ImportQuery['source']>;

/** The sources a person may choose (the server's list), in the order offered. */
export const SOURCES: readonly ImportSource[] = ['bitly', 'dub', 'shlink', 'rebrandly', 'csv'];

/** What the person chose about a file: read as `source` (none: detected), their column choices, the collection, http upgraded. */
export interface ImportChoices {
  source?: ImportSource;
  /** `{ ourField: theirColumn }`: only the fields the person changed (the rest as the source guesses). */
  mapping: Record<string, string>;
  collection: string;
  upgradeHttp: boolean;
}

/** Every field a mapping may name (the API's listing; the preview's `fields` is used once there is one). */
export const FIELDS = [
  'url',
  'title',
  'description',
  'tags',
  'collection',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'externalId',
  'shortUrl',
  'keyword',
  'domain',
  'createdAt',
] as const;
