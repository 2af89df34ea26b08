import type { Link } from '../links/service.js';
import type { ImportRow } from './row.js';

/**
 * What an import does with one row, decided from the link it already is (if any): create it,
 * update the fields that differ, or leave it unchanged. Pure.
 */

export interface Resolved {
  row: ImportRow;
  collectionId: string;
  tagIds: string[];
  /** The old short URL as the Link record shows aliases, when the row has one. */
  alias?: string;
}

export type Action =
  { kind: 'create'; input: Record<string, unknown> } | { kind: 'update'; input: Record<string, unknown> & { id: string } } | { kind: 'unchanged' };

const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content'] as const;

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** The fields a row sets; a field the file leaves empty is not touched on update. */
function wanted(r: Resolved): Record<string, unknown> {
  const { row } = r;
  const fields: Record<string, unknown> = { url: row.url, collectionId: r.collectionId };
  if (row.title !== undefined) fields.title = row.title;
  if (row.description !== undefined) fields.description = row.description;
  if (row.tags.length > 0) fields.tagIds = r.tagIds;
  if (Object.keys(row.utm).length > 0) fields.utm = { ...row.utm };
  if (row.externalId !== undefined) fields.externalId = row.externalId;
  return fields;
}

/** The wanted fields that differ from the link as it is. */
function changes(link: Link, fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'tagIds') {
      if (!sameList(link.tagIds, value as string[])) out.tagIds = value;
    } else if (key === 'utm') {
      const utm = value as Record<string, string>;
      if (UTM_KEYS.some((k) => utm[k] !== undefined && utm[k] !== (link.utm?.[k] ?? undefined))) out.utm = utm;
    } else if ((link as Record<string, unknown>)[key] !== value) {
      out[key] = value;
    }
  }
  return out;
}

export function actionFor(r: Resolved, link: Link | undefined): Action {
  const fields = wanted(r);
  if (!link) return { kind: 'create', input: r.alias ? { ...fields, aliases: [r.alias] } : fields };
  const diff = changes(link, fields);
  if (r.alias && !link.aliases.includes(r.alias)) diff.aliases = [...link.aliases, r.alias];
  return Object.keys(diff).length === 0 ? { kind: 'unchanged' } : { kind: 'update', input: { ...diff, id: link.id } };
}
