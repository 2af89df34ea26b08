import type { components } from '../../api/schema.js';
import type { Formats } from './format.js';
import type { Strings } from './strings.js';

type Group = components['schemas']['AnalyticsGroup'];

/** The headings of the four numbers every analytics table ends with. */
export const metricColumns = (s: Strings) => [s.clicks, s.leads, s.sales, s.revenue];

/** A row's clicks, leads, sales and revenue (revenue per currency, never added across currencies). */
export function MetricCells({ g, f }: { g: Group; f: Formats }) {
  return (
    <>
      <td>{f.number(g.clicks)}</td>
      <td>{f.number(g.leads)}</td>
      <td>{f.number(g.sales)}</td>
      <td>{f.revenue(g.revenue)}</td>
    </>
  );
}
