import type { AffiliateSource } from './affiliates/fields.js';

/**
 * What the import reader hands the import job (operations.md §13): one row per line of the file,
 * already checked and normalised, or the reason that line cannot be imported.
 */

/** The CSV sources. */
export type CsvSource = 'bitly' | 'dub' | 'shlink' | 'rebrandly' | 'csv';
/** Every source an import reads: the CSV ones, `linktrail`, our own export (NDJSON), and the affiliate tools' exports (operations.md §18). */
export type ImportSource = CsvSource | 'linktrail' | AffiliateSource;

export { isAffiliateSource, AFFILIATE_SOURCES, type AffiliateSource } from './affiliates/fields.js';

export interface ImportRow {
  /** The row's number as a spreadsheet shows it (the header is 1), multi-line cells counting once. */
  line: number;
  /** The destination: an https URL in its normalised form (http rewritten when upgradeHttp). */
  url: string;
  title?: string;
  description?: string;
  /** Names, trimmed, de-duplicated ignoring case (the first spelling kept), empty ones dropped. */
  tags: string[];
  /** A collection's name (or id) as the file writes it. */
  collection?: string;
  utm: { source?: string; medium?: string; campaign?: string; term?: string; content?: string };
  externalId?: string;
  /** The old short URL, `https://<host>/<path>`: host lower-case punycode, path exact, one trailing slash dropped. */
  shortUrl?: string;
  /** ISO 8601 (UTC) when the file gives a creation date from 2000 to now: the created link's createdAt. */
  createdAt?: string;
  /** What of the row is not kept, the row imported all the same (a creation date out of range). */
  warnings?: RowWarning[];
}

export interface RowWarning {
  field: string;
  reason: string;
  message: { en: string; ar: string };
}

export type ReadResult = { ok: true; row: ImportRow } | { ok: false; line: number; field: string; reason: string; message: { en: string; ar: string } };

export interface ReadOptions {
  source: CsvSource;
  /** `{ ourField: theirColumn }`, overriding what the source would guess. */
  mapping?: Record<string, string>;
  upgradeHttp?: boolean;
  /** The host of old short URLs given as a bare keyword (YOURLS, Kutt…): rows with no domain of their own. */
  domain?: string;
}

/** The fields a file's columns can feed; `keyword` + `domain` build the old short URL when there is none. */
export const IMPORT_FIELDS = [
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

export type ImportField = (typeof IMPORT_FIELDS)[number];
