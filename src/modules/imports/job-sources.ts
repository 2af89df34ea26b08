import { affiliateSource } from './affiliates/source.js';
import { csvSource } from './csv-source.js';
import type { JobSource } from './job-source.js';
import { linktrailSource } from './linktrail/source.js';
import { isAffiliateSource, type ImportSource } from './row.js';

/** The reader and writer of each `source` an import takes. */
export function jobSource(source: ImportSource): JobSource {
  if (source === 'linktrail') return linktrailSource;
  return isAffiliateSource(source) ? affiliateSource(source) : csvSource(source);
}
