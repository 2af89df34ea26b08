import type { components } from '../../api/schema.js';
import { CountDelta, RevenueDelta } from './delta.js';
import { funnelRates, hasVisitors } from './figures.js';

export { hasVisitors };
import type { Formats } from './format.js';
import type { Strings } from './strings.js';

/** A group of GET /api/analytics. */
export type Group = components['schemas']['AnalyticsGroup'];


/** The headings of the numbers every analytics table ends with: the figures (visitors beside clicks), then the funnel's rates. */
export const metricColumns = (s: Strings, visitors = false) => [
  s.clicks,
  ...(visitors ? [s.visitors] : []),
  s.leads,
  s.sales,
  s.revenue,
  s.leadsPerClick,
  s.salesPerClick,
];

interface Props {
  g: Group;
  f: Formats;
  s: Strings;
  visitors?: boolean;
  /** Show each figure's change against g.previous. */
  compare?: boolean;
}

/** A row's figures (revenue per currency, never added across currencies), each with its change when compared, and its conversion rates. */
export function MetricCells({ g, f, s, visitors, compare }: Props) {
  const before = compare ? g.previous : undefined;
  const r = funnelRates(g);
  const pct = (p: number | undefined) => (p === undefined ? '—' : f.percent(p));
  // Each cell names its column (data-label): below 600 px a row becomes a small card (analytics.css).
  const count = (k: 'clicks' | 'leads' | 'sales') => (
    <td data-label={s[k]}>
      <span class="lt-now">{f.number(g[k])}</span>
      {before && <CountDelta now={g[k]} before={before[k]} f={f} s={s} compact />}
    </td>
  );
  return (
    <>
      {count('clicks')}
      {visitors && <td data-label={s.visitors}>{f.number(g.visitors ?? 0)}</td>}
      {count('leads')}
      {count('sales')}
      <td data-label={s.revenue}>
        <span class="lt-now">{f.revenue(g.revenue)}</span>
        {before && <RevenueDelta now={g.revenue} before={before.revenue} f={f} s={s} compact />}
      </td>
      <td data-label={s.leadsPerClick}>{pct(r.leadsPerClick)}</td>
      <td data-label={s.salesPerClick}>{pct(r.salesPerClick)}</td>
    </>
  );
}
