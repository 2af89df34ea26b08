import { Paginator } from '../../ui/paginator.js';

/** Previous / next for a server-paged list, 1-based (shown only when there is more than one page). */
export function Pages({ label, page, more, onPage }: { label: string; page: number; more: boolean; onPage: (page: number) => void }) {
  return (
    <Paginator
      class="conv-pages"
      label={label}
      page={page}
      hasPrevious={page > 1}
      hasNext={more}
      onPrevious={() => onPage(page - 1)}
      onNext={() => onPage(page + 1)}
    />
  );
}
