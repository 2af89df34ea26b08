import { csvSource } from './csv-source.js';
import type { JobSource } from './job-source.js';
import { linktrailSource } from './linktrail/source.js';
import type { ImportSource } from './row.js';

/** The reader and writer of each `source` an import takes. */
export function jobSource(source: ImportSource): JobSource {
  return source === 'linktrail' ? linktrailSource : csvSource(source);
}
