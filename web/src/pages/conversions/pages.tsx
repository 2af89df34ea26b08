import { useStrings } from '../../i18n/index.js';
import { strings } from './strings.js';

/** Previous / next for a server-paged list (shown only when there is more than one page). */
export function Pages({ label, page, more, onPage }: { label: string; page: number; more: boolean; onPage: (page: number) => void }) {
  const s = useStrings(strings);
  if (page === 1 && !more) return null;
  return (
    <nav class="conv-pages" aria-label={label}>
      <button type="button" disabled={page === 1} onClick={() => onPage(page - 1)}>
        {s.previous}
      </button>
      <span>{s.page(page)}</span>
      <button type="button" disabled={!more} onClick={() => onPage(page + 1)}>
        {s.next}
      </button>
    </nav>
  );
}
