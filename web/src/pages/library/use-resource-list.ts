import { useState } from 'preact/hooks';
import { usePagedList } from '../../ui/paged-list.js';
import type { Resource, Row } from './resources.js';

export const PAGE = 50;

/**
 * The records of a kind, newest first, a page at a time, and what a change made here does to
 * them. While the whole list fits one page, a change is applied in place; otherwise the page is
 * asked again, since skip-based pages move by one (every request counts against the workspace's limit).
 */
export function useResourceList(resource: Resource) {
  const [page, setPage] = useState(0);
  const { list, reload, setRows } = usePagedList<Row>(({ take, skip }) => resource.list(take, skip), {
    page,
    size: PAGE,
    keep: true,
    // The last record of a later page went: show the page before.
    onPastEnd: () => setPage((p) => p - 1),
  });
  const onePage = page === 0 && list.kind === 'ready' && !list.more;
  return {
    list,
    page,
    setPage,
    reload,
    created(row: Row) {
      if (onePage && list.rows.length < PAGE) setRows((rows) => [row, ...rows]);
      else if (page === 0) reload();
      else setPage(0);
    },
    saved(row: Row) {
      setRows((rows) => rows.map((r) => (r.id === row.id ? row : r)));
    },
    deleted(row: Row) {
      setRows((rows) => rows.filter((r) => r.id !== row.id));
      if (!onePage) reload();
    },
  };
}
