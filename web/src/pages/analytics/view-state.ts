import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { browserZone, DEFAULT_PRESET, isDate, isZone, PRESETS, type Preset } from './range.js';

/**
 * What an analytics view shows, kept in the page's URL query so a view can be shared and
 * reloaded: ?range=7d (or range=custom&start=…&end=…), tz=Asia/Kolkata, linkId, partnerId
 * (the filters GET /api/analytics takes), and each card's chosen breakdown (by=country,…).
 * Defaults stay out of the URL.
 */
export interface ViewState {
  range: Preset | 'custom';
  start?: string;
  end?: string;
  tz: string;
  linkId?: string;
  partnerId?: string;
  /** Card → chosen dimension. */
  by: Record<string, string>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function readView(search: string): ViewState {
  const q = new URLSearchParams(search);
  const raw = q.get('range');
  const start = q.get('start') ?? undefined;
  const end = q.get('end') ?? undefined;
  const range: ViewState['range'] =
    raw === 'custom' && isDate(start) && isDate(end) ? 'custom' : PRESETS.includes(raw as Preset) ? (raw as Preset) : DEFAULT_PRESET;
  const tz = q.get('tz');
  const id = (name: string) => {
    const v = q.get(name);
    return v && UUID.test(v) ? v : undefined;
  };
  const by: Record<string, string> = {};
  for (const pair of q.getAll('by')) {
    const [card, dim] = pair.split(':');
    if (card && dim) by[card] = dim;
  }
  return {
    range,
    ...(range === 'custom' ? { start, end } : {}),
    tz: tz && isZone(tz) ? tz : browserZone(),
    linkId: id('linkId'),
    partnerId: id('partnerId'),
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
  if (v.linkId) q.set('linkId', v.linkId);
  if (v.partnerId) q.set('partnerId', v.partnerId);
  for (const [card, dim] of Object.entries(v.by)) q.append('by', `${card}:${dim}`);
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** The view of the current URL, and a way to change it (a new history entry, so Back undoes it). */
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
