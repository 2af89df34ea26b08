import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { browserZone, DEFAULT_PRESET, isDate, isZone, PRESETS, resolveRange, type Preset, type Resolved } from './range.js';

/**
 * The filters GET /api/analytics takes, each the key of a row of one breakdown (its query
 * parameter → the groupBy whose rows it takes), in the order the URL and the chips show them.
 */
export const FILTERS = {
  linkId: 'link',
  partnerId: 'partner',
  collectionId: 'collection',
  tagId: 'tag',
  country: 'country',
  continent: 'continent',
  region: 'region',
  city: 'city',
  device: 'device',
  browser: 'browser',
  os: 'os',
  referrer: 'referrer',
  referrerUrl: 'referrer_url',
  trigger: 'trigger',
  utmSource: 'utm_source',
  utmMedium: 'utm_medium',
  utmCampaign: 'utm_campaign',
  utmTerm: 'utm_term',
  utmContent: 'utm_content',
} as const;
export type FilterParam = keyof typeof FILTERS;
export type FilterDim = (typeof FILTERS)[FilterParam];
export type Filters = Partial<Record<FilterParam, string>>;
export const FILTER_PARAMS = Object.keys(FILTERS) as FilterParam[];

/** The filter a row of this breakdown sets. */
export function filterParamOf(dim: string): FilterParam | undefined {
  return FILTER_PARAMS.find((p) => FILTERS[p] === dim);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CONTINENTS = ['AF', 'AN', 'AS', 'EU', 'NA', 'OC', 'SA', '(unknown)'];

/** Whether the API takes this value for the filter (ids are UUIDs: a '(none)' row of links, collections, tags or partners filters nothing). */
export function filterValueOk(param: FilterParam, value: string): boolean {
  switch (param) {
    case 'linkId':
    case 'partnerId':
    case 'collectionId':
    case 'tagId':
      return UUID.test(value);
    case 'continent':
      return CONTINENTS.includes(value);
    case 'trigger':
      return value === 'link' || value === 'qr';
    default:
      return value.length >= 1 && value.length <= 2048;
  }
}

/**
 * What an analytics view shows, kept in the page's URL query so a view can be shared and
 * reloaded: ?range=7d (or range=custom&start=…&end=…), tz=Asia/Kolkata, the filters (named
 * as GET /api/analytics names them: linkId, country, utmSource…), each card's chosen
 * breakdown (by=device:browser,…) and the comparison (compare=previous|year). Defaults stay out of the URL.
 */
export interface ViewState {
  range: Preset | 'custom';
  start?: string;
  end?: string;
  tz: string;
  filters: Filters;
  /** Card → chosen dimension. */
  by: Record<string, string>;
  /** The earlier period each figure is compared with (GET /api/analytics compare=), or none. */
  compare?: Compare;
}

export const COMPARES = ['previous', 'year'] as const;
export type Compare = (typeof COMPARES)[number];

export function readView(search: string): ViewState {
  const q = new URLSearchParams(search);
  const raw = q.get('range');
  const start = q.get('start') ?? undefined;
  const end = q.get('end') ?? undefined;
  const range: ViewState['range'] =
    raw === 'custom' && isDate(start) && isDate(end) ? 'custom' : PRESETS.includes(raw as Preset) ? (raw as Preset) : DEFAULT_PRESET;
  const tz = q.get('tz');
  const filters: Filters = {};
  for (const p of FILTER_PARAMS) {
    const v = q.get(p);
    if (v !== null && filterValueOk(p, v)) filters[p] = v;
  }
  const by: Record<string, string> = {};
  for (const pair of q.getAll('by')) {
    const [card, dim] = pair.split(':');
    if (card && dim) by[card] = dim;
  }
  const compare = COMPARES.find((c) => c === q.get('compare'));
  return {
    range,
    ...(range === 'custom' ? { start, end } : {}),
    ...(compare ? { compare } : {}),
    tz: tz && isZone(tz) ? tz : browserZone(),
    filters,
    by,
  };
}

export function writeView(v: ViewState): string {
  const q = new URLSearchParams();
  if (v.range !== DEFAULT_PRESET) q.set('range', v.range);
  if (v.range === 'custom' && v.start && v.end) {
    q.set('start', v.start);
    q.set('end', v.end);
  }
  if (v.tz !== browserZone()) q.set('tz', v.tz);
  for (const p of FILTER_PARAMS) {
    const value = v.filters[p];
    if (value !== undefined) q.set(p, value);
  }
  for (const [card, dim] of Object.entries(v.by)) q.append('by', `${card}:${dim}`);
  if (v.compare) q.set('compare', v.compare);
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** The view of the current URL, and a way to change it (a new history entry, so Back undoes it). */
/** The view's range in its zone: its preset, or its custom dates (the last 30 days while they are incomplete). */
export function resolvedRangeOf(view: Pick<ViewState, 'range' | 'start' | 'end' | 'tz'>): Resolved {
  if (view.range !== 'custom') return resolveRange(view.range, view.tz);
  return resolveRange(isDate(view.start) && isDate(view.end) ? { start: view.start, end: view.end } : '30d', view.tz);
}

export function useViewState(): [ViewState, (patch: Partial<ViewState>) => void] {
  const [search, setSearch] = useState(location.search);
  useEffect(() => {
    const on = () => setSearch(location.search);
    addEventListener('popstate', on);
    return () => removeEventListener('popstate', on);
  }, []);
  const view = useMemo(() => readView(search), [search]);
  const update = useCallback(
    (patch: Partial<ViewState>) => {
      const next = writeView({ ...view, ...patch });
      if (next === location.search || (next === '' && location.search === '')) return;
      history.pushState(null, '', location.pathname + next);
      // Every view of the page (and the router) reads the new query.
      dispatchEvent(new PopStateEvent('popstate'));
    },
    [view],
  );
  return [view, update];
}
