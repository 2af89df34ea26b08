import { useEffect, useMemo, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { addDays, isDate, PRESETS, resolveRange, wallHour, type Preset } from './range.js';
import type { Strings } from './strings.js';
import type { ViewState } from './view-state.js';

const PRESET_LABEL: Record<Preset, keyof Strings> = {
  '24h': 'last24h',
  '7d': 'last7d',
  '30d': 'last30d',
  '90d': 'last90d',
  '12m': 'last12m',
  all: 'all',
};

function zones(current: string): string[] {
  const all = new Set(typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []);
  all.add('UTC');
  all.add(current);
  return [...all].sort();
}

interface Props {
  view: ViewState;
  update: (patch: Partial<ViewState>) => void;
  s: Strings;
}

/** Date range (presets or custom dates) and time zone. */
export function Controls({ view, update, s }: Props) {
  const zoneList = useMemo(() => zones(view.tz), [view.tz]);
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
      <label class="field">
        <span>{s.timeZone}</span>
        <select value={view.tz} onChange={(e) => update({ tz: e.currentTarget.value })}>
          {zoneList.map((z) => (
            <option key={z} value={z}>
              {z}
            </option>
          ))}
        </select>
      </label>
      {bad && (
        <p class="error lt-wide" role="alert">
          {s.badDates}
        </p>
      )}
    </div>
  );
}

/** Names of filtered links and partners, learnt from the rows clicked or asked of the API once. */
const filterNames = new Map<string, string>();
export function rememberFilterName(kind: 'linkId' | 'partnerId', id: string, label: string): void {
  filterNames.set(`${kind}:${id}`, label);
}

function useFilterName(kind: 'linkId' | 'partnerId', id: string): string {
  const [name, setName] = useState(() => filterNames.get(`${kind}:${id}`));
  useEffect(() => {
    const known = filterNames.get(`${kind}:${id}`);
    if (known) return setName(known);
    let live = true;
    const found =
      kind === 'linkId'
        ? api.GET('/api/links', { params: { query: { id } } }).then(({ data }) => data?.[0] && (data[0].title ?? data[0].shortUrl))
        : api.GET('/api/partners', { params: { query: { id } } }).then(({ data }) => data?.[0]?.name);
    found.then(
      (n) => {
        if (!n) return;
        filterNames.set(`${kind}:${id}`, n);
        if (live) setName(n);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [kind, id]);
  return name ?? id;
}

/** The active filters, each a button that removes it. */
export function FilterChips({ view, update, s }: Props) {
  const active = (['linkId', 'partnerId'] as const).filter((k) => view[k]);
  if (active.length === 0) return null;
  return (
    <div class="lt-chips" role="group" aria-label={s.filters}>
      {active.map((k) => (
        <Chip key={k} kind={k} id={view[k]!} s={s} onRemove={() => update({ [k]: undefined })} />
      ))}
      {active.length > 1 && (
        <button type="button" class="lt-clear" onClick={() => update({ linkId: undefined, partnerId: undefined })}>
          {s.clearFilters}
        </button>
      )}
    </div>
  );
}

function Chip({ kind, id, s, onRemove }: { kind: 'linkId' | 'partnerId'; id: string; s: Strings; onRemove: () => void }) {
  const name = useFilterName(kind, id);
  const what = `${kind === 'linkId' ? s.filterLink : s.filterPartner}: ${name}`;
  return (
    <button type="button" class="lt-chip" onClick={onRemove} aria-label={`${s.removeFilter} ${what}`}>
      <span>{what}</span>
      <span aria-hidden="true"> ✕</span>
    </button>
  );
}
