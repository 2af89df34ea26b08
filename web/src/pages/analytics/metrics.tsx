import { Fragment } from 'preact';
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
      <td data-label={s.revenue} class={Object.keys(g.revenue).length > 1 ? 'lt-money lt-money-wide' : 'lt-money'}>
        <span class="lt-now">
          <Amounts amounts={g.revenue} f={f} />
        </span>
        {before && <RevenueDelta now={g.revenue} before={before.revenue} f={f} s={s} compact />}
      </td>
      <td data-label={s.leadsPerClick}>{pct(r.leadsPerClick)}</td>
      <td data-label={s.salesPerClick}>{pct(r.salesPerClick)}</td>
    </>
  );
}

/**
 * Amounts per currency, one per currency in code order ("$49.00 · €20.00"), each kept on one
 * line: a narrow cell wraps between currencies, never inside an amount.
 */
export function Amounts({ amounts, f }: { amounts: Group['revenue']; f: Formats }) {
  const codes = Object.keys(amounts).sort();
  if (codes.length === 0) return <>—</>;
  return (
    <>
      {codes.map((code, i) => (
        <Fragment key={code}>
          {i > 0 && ' · '}
          <span class="lt-amount">{f.money(Number(amounts[code]), code)}</span>
        </Fragment>
      ))}
    </>
  );
}
