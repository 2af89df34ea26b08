/**
 * The state of the Links page's list: its filters and the page shown, its rows and their total,
 * and the collections, tags and partners the filters and the form offer.
 */
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from '../../api/client.js';
import { LangContext } from '../../i18n/index.js';
import { usePagedList } from '../../ui/paged-list.js';
import { fetchLinks, fetchReferences, NO_FILTERS, type ListFilters, type Named } from './data.js';
import { DEFAULT_ORDER, DEFAULT_PRESET, statsQuery, type LinkRow, type Order, type Preset } from './stats.js';

/** Rows per page the list offers; the first page shows DEFAULT_PAGE_SIZE. */
export const PAGE_SIZES = [25, 50, 100, 250] as const;
export const DEFAULT_PAGE_SIZE = 50;
const SEARCH_DELAY_MS = 300;

export type FilterKey = Exclude<keyof ListFilters, 'search'>;
export type References = { collections: Named[]; tags: Named[]; partners: Named[] };

/** The filters and the page shown: a changed filter shows the first page again; typing waits for a pause before asking the API. */
export function useLinkFilters() {
  const [searchInput, setSearchInput] = useState('');
  const [filters, setFilters] = useState<ListFilters>(NO_FILTERS);
  const [page, setPage] = useState(0);
  const [order, setOrderState] = useState<Order>(DEFAULT_ORDER);
  const [preset, setPresetState] = useState<Preset>(DEFAULT_PRESET);
  const [pageSize, setPageSizeState] = useState<number>(DEFAULT_PAGE_SIZE);
  useEffect(() => {
    if (searchInput === filters.search) return;
    const timer = setTimeout(() => {
      setFilters((f) => ({ ...f, search: searchInput }));
      setPage(0);
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [searchInput]);
  return {
    searchInput,
    setSearchInput,
    filters,
    filtered: Object.values(filters).some(Boolean),
    setFilter: (key: FilterKey, value: string) => {
      setFilters((f) => ({ ...f, [key]: value }));
      setPage(0);
    },
    clear: () => {
      setSearchInput('');
      setFilters(NO_FILTERS);
      setPage(0);
    },
    page,
    setPage,
    /** The column the list is sorted by, and which way (createdAt without stats). */
    order,
    setOrder: (o: Order) => {
      setOrderState(o);
      setPage(0);
    },
    /** Rows per page (one of PAGE_SIZES): a new size shows the page holding the first row shown until then. */
    pageSize,
    setPageSize: (size: number) => {
      setPage((p) => Math.floor((p * pageSize) / size));
      setPageSizeState(size);
    },
    /** The range of the stats columns. */
    preset,
    setPreset: (p: Preset) => {
      setPresetState(p);
      setPage(0);
    },
  };
}
export type LinkFilters = ReturnType<typeof useLinkFilters>;

/**
 * A page of the links the filters match, uncounted (the rows of a page need no count, so they
 * are on screen sooner), and their total beside them, counted again only when the filters
 * change. `version` goes up when links were changed here. With `withStats` (the analyticsRead
 * scope) each row carries its clicks, leads, sales and revenue for the range, in the order chosen.
 */
export function useLinkRows({ filters, page, setPage, order, preset, pageSize }: LinkFilters, version: number, withStats: boolean) {
  const rows = usePagedList<LinkRow>(
    ({ take, skip, signal }) =>
      fetchLinks(filters, take, skip, { count: false, signal, sort: order.sort, stats: withStats ? statsQuery(preset, order) : undefined }).then(
        ({ links }) => ({ data: links }),
      ),
    // Past the end (links deleted meanwhile): back to the first page.
    { page, size: pageSize, deps: [filters, version, order, preset, withStats, pageSize], keep: true, onPastEnd: () => setPage(0) },
  );
  const [total, setTotal] = useState<number | undefined>(undefined);
  useEffect(() => {
    const controller = new AbortController();
    setTotal(undefined);
    fetchLinks(filters, 1, 0, { signal: controller.signal }).then(
      ({ total }) => setTotal(total),
      () => undefined,
    );
    return () => controller.abort();
  }, [filters, version]);

  // For measuring: the moment the first rows are on screen.
  const marked = useRef(false);
  useEffect(() => {
    if (!marked.current && rows.list.kind === 'ready' && rows.list.rows.length > 0) {
      marked.current = true;
      performance.mark('links:first-rows');
    }
  }, [rows.list]);
  return { ...rows, total };
}

/** Collections, tags and partners (again when `version` goes up), or the message of their failure. */
export function useReferences(version: number): { refs: References; error: string } {
  const { lang } = useContext(LangContext);
  const [refs, setRefs] = useState<References>({ collections: [], tags: [], partners: [] });
  const [error, setError] = useState('');
  useEffect(() => {
    fetchReferences().then(setRefs, (err: unknown) => setError(errorText(err, lang)));
  }, [version]);
  return { refs, error };
}
