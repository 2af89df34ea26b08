import { useStrings } from '../../i18n/index.js';
import type { Named } from './data.js';
import { PRESETS, type Preset } from './stats.js';
import { strings } from './strings.js';
import type { FilterKey, LinkFilters, References } from './use-link-list.js';

/**
 * The search box and the collection, tag and partner filters (a search landmark), with Clear
 * filters once any is set; with the stats columns, their date range (the analytics page's presets).
 */
export function FiltersForm({ view, refs, withStats }: { view: LinkFilters; refs: References; withStats: boolean }) {
  const s = useStrings(strings);
  const select = (key: FilterKey, label: string, options: Named[]) => (
    <div class="field">
      <label for={`links-filter-${key}`}>{label}</label>
      <select id={`links-filter-${key}`} value={view.filters[key]} onChange={(e) => view.setFilter(key, e.currentTarget.value)}>
        <option value="">{s.all}</option>
        {options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <form class="links-toolbar links-filters" role="search" aria-label={s.filters} onSubmit={(e) => e.preventDefault()}>
      <div class="field">
        <label for="links-search">{s.search}</label>
        <input
          id="links-search"
          data-shortcut="search"
          type="search"
          value={view.searchInput}
          placeholder={s.searchHint}
          maxLength={200}
          onInput={(e) => view.setSearchInput(e.currentTarget.value)}
        />
      </div>
      {select('collectionId', s.collection, refs.collections)}
      {select('tagId', s.tag, refs.tags)}
      {select('partnerId', s.partner, refs.partners)}
      {withStats && (
        <div class="field">
          <label for="links-range">{s.range}</label>
          <select id="links-range" value={view.preset} onChange={(e) => view.setPreset(e.currentTarget.value as Preset)}>
            {PRESETS.map((p) => (
              <option key={p} value={p}>
                {s.presets[p]}
              </option>
            ))}
          </select>
        </div>
      )}
      {view.filtered && (
        <button type="button" onClick={view.clear}>
          {s.clearFilters}
        </button>
      )}
    </form>
  );
}
