import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { Lang } from '../../i18n/index.js';
import { TimeZonePicker } from '../../ui/time-zone-picker.js';
import { rowLabel, type Group } from './breakdown.js';
import { addDays, isDate, PRESETS, resolveRange, wallHour, type Preset } from './range.js';
import type { Strings } from './strings.js';
import { CompareSelect } from './compare-select.js';
import { FILTER_PARAMS, FILTERS, type FilterParam, type ViewState } from './view-state.js';

export const PRESET_LABEL: Record<Preset, keyof Strings> = {
  today: 'today',
  mtd: 'monthToDate',
  '24h': 'last24h',
  '7d': 'last7d',
  '30d': 'last30d',
  '90d': 'last90d',
  '12m': 'last12m',
  all: 'all',
};

interface Props {
  view: ViewState;
  update: (patch: Partial<ViewState>) => void;
  s: Strings;
}

/** Date range (presets or custom dates) and time zone. */
export function Controls({ view, update, s }: Props) {
  const [start, setStart] = useState(view.start ?? '');
  const [end, setEnd] = useState(view.end ?? '');
  useEffect(() => {
    setStart(view.start ?? '');
    setEnd(view.end ?? '');
  }, [view.start, view.end]);
  const bad = view.range === 'custom' && isDate(start) && isDate(end) && start > end;

  const chooseRange = (value: string) => {
    if (value !== 'custom') return update({ range: value as Preset, start: undefined, end: undefined });
    // Custom starts from the range shown until now, as dates of the zone.
    const shown = resolveRange(view.range === 'custom' ? '30d' : view.range, view.tz);
    const today = wallHour(Date.now(), view.tz).slice(0, 10);
    const first = shown.buckets?.[0]?.slice(0, 10);
    const from = isDate(shown.startDate) ? shown.startDate : isDate(first) ? first : addDays(today, -29);
    update({ range: 'custom', start: from, end: today });
  };
  const setDates = (a: string, b: string) => {
    setStart(a);
    setEnd(b);
    if (isDate(a) && isDate(b) && a <= b) update({ range: 'custom', start: a, end: b });
  };

  return (
    <div class="lt-controls" role="group" aria-label={s.controls}>
      <label class="field">
        <span>{s.range}</span>
        <select value={view.range} onChange={(e) => chooseRange(e.currentTarget.value)}>
          {PRESETS.map((p) => (
            <option key={p} value={p}>
              {s[PRESET_LABEL[p]]}
            </option>
          ))}
          <option value="custom">{s.custom}</option>
        </select>
      </label>
      {view.range === 'custom' && (
        <>
          <label class="field">
            <span>{s.startDate}</span>
            <input type="date" value={start} max={end || undefined} aria-invalid={bad} onChange={(e) => setDates(e.currentTarget.value, end)} />
          </label>
          <label class="field">
            <span>{s.endDate}</span>
            <input type="date" value={end} min={start || undefined} aria-invalid={bad} onChange={(e) => setDates(start, e.currentTarget.value)} />
          </label>
        </>
      )}
      <CompareSelect value={view.compare} onChange={(compare) => update({ compare })} unavailable={view.range === 'all'} s={s} />
      <TimeZonePicker label={s.timeZone} value={view.tz} onChange={(tz) => update({ tz })} />
      {bad && (
        <p class="error lt-wide" role="alert">
          {s.badDates}
        </p>
      )}
    </div>
  );
}

/** A filter value as the page writes it (see rowLabel). */
export interface Named {
  text: string;
  ltr?: boolean;
}

/** Names of filtered links, partners, collections and tags, learnt from the rows clicked or asked of the API once. */
const filterNames = new Map<string, Named>();
export function rememberFilterName(param: FilterParam, value: string, label: Named): void {
  if (ID_PARAMS.has(param)) filterNames.set(`${param}:${value}`, label);
}

const ID_PARAMS: ReadonlySet<FilterParam> = new Set(['linkId', 'partnerId', 'collectionId', 'tagId']);

function fetchName(param: FilterParam, id: string): Promise<Named | undefined> {
  const q = { params: { query: { id } } };
  switch (param) {
    case 'linkId':
      return api.GET('/api/links', q).then(({ data }) => data?.[0] && (data[0].title ? { text: data[0].title } : { text: data[0].shortUrl, ltr: true }));
    case 'partnerId':
      return api.GET('/api/partners', q).then(({ data }) => data?.[0] && { text: data[0].name });
    case 'collectionId':
      return api.GET('/api/collections', q).then(({ data }) => data?.[0] && { text: data[0].name });
    default:
      return api.GET('/api/tags', q).then(({ data }) => data?.[0] && { text: data[0].name });
  }
}

/** A filter's value in words: a known name, or the row's label, or (an id not found) the id itself. */
function useFilterLabel(param: FilterParam, value: string, s: Strings, lang: Lang): Named {
  const isId = ID_PARAMS.has(param);
  const [name, setName] = useState(() => filterNames.get(`${param}:${value}`));
  useEffect(() => {
    if (!isId) return;
    const known = filterNames.get(`${param}:${value}`);
    if (known) return setName(known);
    setName(undefined);
    let live = true;
    fetchName(param, value).then(
      (n) => {
        if (!n) return;
        filterNames.set(`${param}:${value}`, n);
        if (live) setName(n);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [param, value]);
  if (!isId) return rowLabel(FILTERS[param], { key: value, clicks: 0, leads: 0, sales: 0, saleAmount: 0 } as Group, s, lang);
  return name ?? { text: value, ltr: true };
}

/**
 * Keyboard focus after the chips change: the chip of a filter just added (its row is no button
 * any more), or after a removal the first chip left (or the chips' place in the page).
 */
export function focusChip(param?: FilterParam): void {
  // After the view re-renders with the new query.
  setTimeout(() => {
    const chip = document.querySelector<HTMLElement>(param ? `.lt-chip[data-filter="${param}"]` : '.lt-chip');
    chip?.focus();
  }, 50);
}

/** A filter in words for the report: its dimension and the name known for its value (else the value). */
export function filterText(param: FilterParam, value: string, s: Strings, lang: Lang): string {
  const known = filterNames.get(`${param}:${value}`);
  const named = ID_PARAMS.has(param) ? known : rowLabel(FILTERS[param], { key: value } as Group, s, lang);
  return `${dimensionName(param, s)}: ${named?.text ?? value}`;
}

/** The name of a filter's dimension on its chip. */
function dimensionName(param: FilterParam, s: Strings): string {
  const dim = FILTERS[param];
  return dim.startsWith('utm_') ? s[`chip_${dim}` as 'chip_utm_source'] : s[dim];
}

interface ChipsProps {
  view: ViewState;
  update: (patch: Partial<ViewState>) => void;
  s: Strings;
  lang: Lang;
  /** A filter the page sets itself (a link's page: linkId), not shown and not removed. */
  fixed?: FilterParam;
}

/** The active filters, each a button that removes it, and one that removes them all. */
export function FilterChips({ view, update, s, lang, fixed }: ChipsProps) {
  const active = FILTER_PARAMS.filter((p) => p !== fixed && view.filters[p] !== undefined);
  if (active.length === 0) return null;
  const without = (gone: FilterParam[]) => {
    const filters = { ...view.filters };
    for (const p of gone) delete filters[p];
    return filters;
  };
  return (
    <div class="lt-chips" role="group" aria-label={s.filters}>
      {active.map((p) => (
        <Chip
          key={p}
          param={p}
          value={view.filters[p]!}
          s={s}
          lang={lang}
          onRemove={() => {
            update({ filters: without([p]) });
            focusChip();
          }}
        />
      ))}
      {active.length > 1 && (
        <button type="button" class="lt-clear" onClick={() => update({ filters: without(active) })}>
          {s.clearFilters}
        </button>
      )}
    </div>
  );
}

function Chip({ param, value, s, lang, onRemove }: { param: FilterParam; value: string; s: Strings; lang: Lang; onRemove: () => void }) {
  const name = useFilterLabel(param, value, s, lang);
  const dim = dimensionName(param, s);
  return (
    <button type="button" class="lt-chip" data-filter={param} onClick={onRemove} aria-label={`${s.removeFilter} ${dim}: ${name.text}`}>
      <span>{dim}: </span>
      {name.ltr ? <bdi dir="ltr">{name.text}</bdi> : <span>{name.text}</span>}
      <span aria-hidden="true"> ✕</span>
    </button>
  );
}
