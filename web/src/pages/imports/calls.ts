/**
 * The Import page's calls (operations.md §13) through the typed client: each answers its data
 * or throws the API's error body (worded by errorText). The file is the request's body, as CSV.
 */
import { api } from '../../api/client.js';
import type { ImportChoices, ImportJob, ImportQuery, Preview } from './types.js';

function query(c: ImportChoices): ImportQuery {
  return {
    ...(c.source ? { source: c.source } : {}),
    ...(Object.keys(c.mapping).length > 0 ? { mapping: JSON.stringify(c.mapping) } : {}),
    ...(c.collection.trim() ? { collection: c.collection.trim() } : {}),
    ...(c.upgradeHttp ? { upgradeHttp: true } : {}),
  };
}

/**
 * The file as the body, sent as it is (the browser streams it from disk). The OpenAPI document
 * declares no request body for these routes, so the client is told to pass it through.
 */
const fileBody = (file: Blob) => ({ body: file as never, bodySerializer: (body: unknown) => body as BodyInit, headers: { 'content-type': 'text/csv' } });

function dataOf<T>({ data, error }: { data?: T; error?: unknown }): T {
  if (error !== undefined || data === undefined) throw error;
  return data;
}

export const previewImport = async (file: Blob, c: ImportChoices, signal?: AbortSignal): Promise<Preview> =>
  dataOf(await api.POST('/api/imports/preview', { params: { query: query(c) }, ...fileBody(file), signal }));

export const startImport = async (file: File, c: ImportChoices): Promise<ImportJob> =>
  dataOf(await api.POST('/api/imports', { params: { query: query(c) }, ...fileBody(file) }));

export const getImport = async (id: string): Promise<ImportJob> => dataOf(await api.GET('/api/imports/{id}', { params: { path: { id } } }));

export const listImports = async (take: number, skip: number, signal?: AbortSignal): Promise<ImportJob[]> =>
  dataOf(await api.GET('/api/imports', { params: { query: { take, skip } }, signal }));

/** The rejected rows as the server writes them (CSV text). */
export const importErrors = async (id: string): Promise<string> =>
  dataOf(await api.GET('/api/imports/{id}/errors', { params: { path: { id } }, parseAs: 'text' }));
