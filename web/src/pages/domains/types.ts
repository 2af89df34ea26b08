import type { paths } from '../../api/schema.js';

/** A claimed host (operations.md §13), as the OpenAPI document types it. */
export type Domain = paths['/api/domains/{id}']['get']['responses'][200]['content']['application/json'];

/** A URL field's text as the API takes it: blank is none (null), else trimmed. */
export const urlOrNull = (text: string): string | null => text.trim() || null;
