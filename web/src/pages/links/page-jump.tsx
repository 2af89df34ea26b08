/** Below the Links list: rows per page, and a jump to a page by its number. */
import { useState } from 'preact/hooks';
import { useStrings } from '../../i18n/index.js';
import { strings } from './strings.js';
import { PAGE_SIZES, type LinkFilters } from './use-link-list.js';

export function PageJump({ view, total, number }: { view: LinkFilters; total: number | undefined; number: Intl.NumberFormat }) {
  const s = useStrings(strings);
  const pages = total === undefined ? undefined : Math.max(1, Math.ceil(total / view.pageSize));
  const [typed, setTyped] = useState('');
  const jump = (e: Event) => {
    e.preventDefault();
    const n = Math.trunc(Number(typed));
    if (!Number.isFinite(n) || n < 1) return;
    view.setPage(Math.min(n, pages ?? n) - 1);
    setTyped('');
  };
  return (
    <div class="links-jump">
      <label class="field-inline">
        <span>{s.rowsPerPage}</span>
        <select value={view.pageSize} onChange={(e) => view.setPageSize(Number(e.currentTarget.value))}>
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {number.format(n)}
            </option>
          ))}
        </select>
      </label>
      {pages !== undefined && pages > 1 && (
        <form class="field-inline" onSubmit={jump}>
          <label for="links-jump-page">{s.goToPage(number.format(pages))}</label>
          <input id="links-jump-page" type="number" inputMode="numeric" min={1} max={pages} value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
          <button type="submit">{s.go}</button>
        </form>
      )}
    </div>
  );
}
