/** The Links page's calls to the API (the typed client), each answering data or throwing the API's error body. */
import { api } from '../../api/client.js';
import type { LinkRow } from './stats.js';

export interface Named {
  id: string;
  name: string;
}

export interface ListFilters {
  search: string;
  collectionId: string;
  tagId: string;
  partnerId: string;
}

export const NO_FILTERS: ListFilters = { search: '', collectionId: '', tagId: '', partnerId: '' };

function query(f: ListFilters, take: number, skip: number, sort: 'asc' | 'desc') {
  return {
    take,
    skip,
    sort,
    ...(f.search.trim() ? { search: f.search.trim() } : {}),
    ...(f.collectionId ? { collectionId: f.collectionId } : {}),
    ...(f.tagId ? { tagId: f.tagId } : {}),
    ...(f.partnerId ? { partnerId: f.partnerId } : {}),
  };
}

/** One page of links and how many match in all (the API's X-Total-Count; with count false, not counted: undefined). */
export async function fetchLinks(
  f: ListFilters,
  take: number,
  skip: number,
  options: { sort?: 'asc' | 'desc'; count?: boolean; signal?: AbortSignal; stats?: Record<string, string> } = {},
): Promise<{ links: LinkRow[]; total: number | undefined }> {
  const { sort = 'desc', count = true, signal, stats = {} } = options;
  const base = { ...query(f, take, skip, sort), ...(count ? {} : { count: false }) };
  // The stats parameters come as strings (statsQuery); the query string carries them as such.
  const { data, error, response } = await api.GET('/api/links', { params: { query: { ...base, ...stats } as typeof base }, signal });
  if (error || !data) throw error;
  const header = response.headers.get('x-total-count');
  return { links: data as LinkRow[], total: header === null ? undefined : Number(header) };
}

/** Every link the filters match, oldest first, 5,000 a request (the API's most); with `stats`, each with its figures. */
export async function fetchAllLinks(f: ListFilters, onProgress: (done: number, total: number) => void, stats?: Record<string, string>): Promise<LinkRow[]> {
  const out: LinkRow[] = [];
  for (;;) {
    const { links, total = out.length + links.length } = await fetchLinks(f, 5000, out.length, { sort: 'asc', stats });
    out.push(...links);
    onProgress(out.length, total);
    if (links.length < 5000 || out.length >= total) return out;
  }
}

/** Collections, tags and partners for the filters and the form (the first 5,000 of each). */
export async function fetchReferences(): Promise<{ collections: Named[]; tags: Named[]; partners: Named[] }> {
  const q = { params: { query: { take: 5000, sort: 'asc' as const } } };
  const [c, t, p] = await Promise.all([api.GET('/api/collections', q), api.GET('/api/tags', q), api.GET('/api/partners', q)]);
  if (c.error || t.error || p.error) throw c.error ?? t.error ?? p.error;
  const named = (rows: { id: string; name: string }[] | undefined): Named[] => (rows ?? []).map((r) => ({ id: r.id, name: r.name }));
  return { collections: named(c.data), tags: named(t.data), partners: named(p.data) };
}
