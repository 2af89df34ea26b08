import { api } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import type { Kind } from './strings.js';

export type Collection = components['schemas']['Collection'];
export type Tag = components['schemas']['Tag'];
export type Partner = components['schemas']['Partner'];
export type Row = Collection | Tag | Partner;

/** A form field of a record: its key in the API's input, and how it is entered. */
export interface FieldDef {
  key: 'name' | 'description' | 'color' | 'email' | 'image';
  kind: 'text' | 'email' | 'url' | 'color';
  required?: boolean;
  autocomplete?: string;
}

/** The form's values: strings as typed; null only for "no colour". */
export type Values = Record<string, string | null>;

type Answer<T> = Promise<{ data?: T; error?: unknown }>;

/** What the page needs of one kind of record; every call is one request of the public API. */
export interface Resource {
  kind: Kind;
  /** What GET /api/links/counts counts this kind's links by. */
  countBy: 'collection' | 'tag' | 'partner';
  fields: FieldDef[];
  list(take: number, skip: number): Answer<Row[]>;
  create(input: Values): Answer<Row[]>;
  update(id: string, input: Values): Answer<Row[]>;
  remove(id: string): Answer<{ deletedIds: string[] }>;
}

/**
 * The request item of a form: a blank optional field is left out of a create and cleared
 * (null) by an update; the name is always sent, so a blank one gets the API's own message.
 */
export function itemOf(fields: FieldDef[], values: Values, update: boolean): Values {
  const item: Values = {};
  for (const f of fields) {
    const v = values[f.key] ?? null;
    const blank = v === null || (f.kind !== 'color' && v.trim() === '');
    if (f.key === 'name') item.name = v ?? '';
    else if (!blank) item[f.key] = f.kind === 'color' ? v : v.trim();
    else if (update || f.kind === 'color') item[f.key] = null;
  }
  return item;
}

const listQuery = (take: number, skip: number) => ({ params: { query: { take, skip, sort: 'desc' as const } } });

// The form's values are checked by the API itself (its messages are shown at their fields).
type Item = Values & { name: string };
type Update = Values & { id: string };

export const RESOURCES: Record<Kind, Resource> = {
  collections: {
    kind: 'collections',
    countBy: 'collection',
    fields: [
      { key: 'name', kind: 'text', required: true, autocomplete: 'off' },
      { key: 'description', kind: 'text', autocomplete: 'off' },
    ],
    list: (take, skip) => api.GET('/api/collections', listQuery(take, skip)),
    create: (input) => api.POST('/api/collections', { body: [input as Item] }),
    update: (id, input) => api.PUT('/api/collections', { body: [{ ...input, id } as Update] }),
    remove: (id) => api.DELETE('/api/collections', { body: [id] }),
  },
  tags: {
    kind: 'tags',
    countBy: 'tag',
    fields: [
      { key: 'name', kind: 'text', required: true, autocomplete: 'off' },
      { key: 'color', kind: 'color' },
    ],
    list: (take, skip) => api.GET('/api/tags', listQuery(take, skip)),
    create: (input) => api.POST('/api/tags', { body: [input as Item] }),
    update: (id, input) => api.PUT('/api/tags', { body: [{ ...input, id } as Update] }),
    remove: (id) => api.DELETE('/api/tags', { body: [id] }),
  },
  partners: {
    kind: 'partners',
    countBy: 'partner',
    fields: [
      { key: 'name', kind: 'text', required: true, autocomplete: 'off' },
      { key: 'email', kind: 'email', autocomplete: 'off' },
      { key: 'image', kind: 'url', autocomplete: 'off' },
    ],
    list: (take, skip) => api.GET('/api/partners', listQuery(take, skip)),
    create: (input) => api.POST('/api/partners', { body: [input as Item] }),
    update: (id, input) => api.PUT('/api/partners', { body: [{ ...input, id } as Update] }),
    remove: (id) => api.DELETE('/api/partners', { body: [id] }),
  },
};

/** The form's values of a record (for editing). */
export function valuesOf(fields: FieldDef[], row: Row): Values {
  const values: Values = {};
  const record = row as unknown as Record<string, string | null | undefined>;
  for (const f of fields) values[f.key] = f.kind === 'color' ? (record[f.key] ?? null) : (record[f.key] ?? '');
  return values;
}

/** Links per record of this kind (a record holding none is absent); empty when the caller may not read links. */
export async function linkCountsOf(resource: Resource): Promise<Map<string, number>> {
  const { data } = await api.GET('/api/links/counts', { params: { query: { by: resource.countBy } } });
  return new Map((data ?? []).map((c) => [c.id, c.links]));
}
