/**
 * The import routes' records (operations.md §13, /work/helpers/imports-contract.md). Written from
 * the contract while the routes are being built; to be read from the OpenAPI document once they are.
 */
export type ImportSource = 'bitly' | 'dub' | 'shlink' | 'rebrandly' | 'csv' | 'linktrail';
export const SOURCES: readonly ImportSource[] = ['bitly', 'dub', 'shlink', 'rebrandly', 'csv', 'linktrail'];

export type PreviewRow =
  | {
      line: number;
      ok: true;
      url: string;
      title?: string;
      description?: string;
      tags: string[];
      collection?: string;
      utm: Record<string, string | undefined>;
      externalId?: string;
      shortUrl?: string;
      createdAt?: string;
    }
  | { line: number; ok: false; field: string; reason: string; message: { en: string; ar: string } };

export interface Preview {
  source: ImportSource;
  detected: boolean;
  columns: string[];
  mapping: Record<string, string>;
  fields: string[];
  total: number;
  rows: PreviewRow[];
}

export interface ImportJob {
  id: string;
  status: 'running' | 'done' | 'failed';
  source: ImportSource;
  total: number;
  done: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  createdAt: string;
  finishedAt: string | null;
  error: { code: string; en: string; ar: string } | null;
}

/** What the person chose about a file: read as `source` (none: detected), their column choices, the collection, http upgraded. */
export interface ImportChoices {
  source?: ImportSource;
  /** `{ ourField: theirColumn }`: only the fields the person changed (the rest as the source guesses). */
  mapping: Record<string, string>;
  collection: string;
  upgradeHttp: boolean;
}

/** Every field a mapping may name (the contract's listing; the preview's `fields` is used once there is one). */
export const FIELDS = ['url', 'title', 'description', 'tags', 'collection', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'externalId', 'shortUrl', 'keyword', 'domain', 'createdAt'] as const;
