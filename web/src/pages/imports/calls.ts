/**
 * The Import page's calls (operations.md §13): each answers its data or throws the API's error
 * body (worded by errorText). The file is the request's body, as its own type.
 */
import type { ImportChoices, ImportJob, Preview } from './types.js';

/** A Linktrail export (NDJSON) goes as such; anything else as CSV. */
export const isNdjson = (file: File) => /\.(nd)?jsonl?$/i.test(file.name) || file.type === 'application/x-ndjson';

function query(file: File, c: ImportChoices): Record<string, string> {
  const q: Record<string, string> = {};
  const source = isNdjson(file) ? 'linktrail' : c.source;
  if (source) q.source = source;
  if (Object.keys(c.mapping).length > 0) q.mapping = JSON.stringify(c.mapping);
  if (c.collection.trim()) q.collection = c.collection.trim();
  if (c.upgradeHttp) q.upgradeHttp = 'true';
  return q;
}

let workspaceId: string | undefined;
/** The workspace the page is for (the typed client adds it itself; this untyped path is told). */
export function setImportWorkspace(id: string): void {
  workspaceId = id;
}

/** An untyped call with the session cookie and the workspace header (the routes are not in the generated types yet). */
async function call<T>(method: 'GET' | 'POST', path: string, init: { query?: Record<string, string>; file?: File; text?: boolean; signal?: AbortSignal } = {}): Promise<T> {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(init.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = {};
  if (workspaceId) headers['x-workspace-id'] = workspaceId;
  if (init.file) headers['content-type'] = isNdjson(init.file) ? 'application/x-ndjson' : 'text/csv';
  const response = await fetch(url, { method, headers, body: init.file, credentials: 'same-origin', signal: init.signal });
  if (!response.ok) throw (await response.json().catch(() => undefined)) ?? new Error(`HTTP ${response.status}`);
  return (init.text ? await response.text() : await response.json()) as T;
}

export const previewImport = (file: File, c: ImportChoices, signal?: AbortSignal) => call<Preview>('POST', '/api/imports/preview', { query: query(file, c), file, signal });
export const startImport = (file: File, c: ImportChoices) => call<ImportJob>('POST', '/api/imports', { query: query(file, c), file });
export const getImport = (id: string) => call<ImportJob>('GET', `/api/imports/${encodeURIComponent(id)}`);
export const listImports = (take: number, skip: number, signal?: AbortSignal) => call<ImportJob[]>('GET', '/api/imports', { query: { take: String(take), skip: String(skip) }, signal });
export const importErrors = (id: string) => call<string>('GET', `/api/imports/${encodeURIComponent(id)}/errors`, { text: true });
