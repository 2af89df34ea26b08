import { useState } from 'preact/hooks';
import { errorText } from '../../api/client.js';
import { download } from '../../ui/download.js';
import type { AnalyticsQuery, Dimension } from './breakdown.js';
import { compareName } from './compare-select.js';
import { filterText, PRESET_LABEL } from './controls.js';
import { bucketNamer, type Formats } from './format.js';
import { wallHour, type Resolved } from './range.js';
import type { ReportHeader } from './report-csv.js';
import type { Strings } from './strings.js';
import { FILTER_PARAMS, type FilterParam, type ViewState } from './view-state.js';

interface Props {
  view: ViewState;
  resolved: Resolved;
  query: AnalyticsQuery;
  /** A filter the page sets itself (a link's page), not named in the report. */
  fixed?: FilterParam;
  s: Strings;
  f: Formats;
}

/** The view in words: range with its dates, zone, filters, comparison. */
export function reportHeader({ view, resolved, query, fixed, s, f }: Props): ReportHeader {
  const today = wallHour(Date.now(), view.tz).slice(0, 10);
  const name = view.range === 'custom' ? s.custom : s[PRESET_LABEL[view.range]];
  const start = resolved.startDate ? (resolved.startDate.length === 10 ? f.date(resolved.startDate) : f.dateTime(resolved.startDate, view.tz)) : undefined;
  const end = resolved.endDate ? f.date(resolved.endDate) : f.date(today);
  return {
    range: start ? `${name}: ${start} – ${end}` : name,
    timeZone: view.tz,
    filters: FILTER_PARAMS.filter((p) => p !== fixed && view.filters[p] !== undefined).map((p) => filterText(p, view.filters[p]!, s, f.lang)),
    comparison: compareName(query.compare, s),
  };
}

/** The view in one line, shown on paper only (the controls are not printed). */
export function ReportSummary(props: Props) {
  const h = reportHeader(props);
  const { s } = props;
  return (
    <p class="lt-print-only">
      {h.range} · {h.timeZone} · {s.filters}: {h.filters.length ? h.filters.join('; ') : s.noFilters} · {s.compare}: {h.comparison}
    </p>
  );
}

/** Export the view as CSV (the report's code is loaded on the first click) and print it. */
export function ReportActions(props: Props & { breakdowns: { title: string; dim: Dimension }[]; name: string }) {
  const { s, f, query, breakdowns, resolved, name } = props;
  const [state, setState] = useState<{ busy: boolean; say: string; failed?: boolean }>({ busy: false, say: '' });
  const exportCsv = async () => {
    setState({ busy: true, say: s.exporting });
    try {
      const { buildReport } = await import('./report.js');
      const text = await buildReport({
        query,
        interval: resolved.interval,
        breakdowns,
        header: reportHeader(props),
        bucketName: bucketNamer(resolved.interval, f.lang),
        s,
        f,
      });
      download(text, 'text/csv;charset=utf-8', `analytics-${name}-${new Date().toISOString().slice(0, 10)}.csv`);
      setState({ busy: false, say: s.exported });
    } catch (e) {
      setState({ busy: false, say: s.exportFailed + errorText(e, f.lang), failed: true });
    }
  };
  return (
    <div class="lt-actions">
      <button type="button" onClick={() => void exportCsv()} disabled={state.busy}>
        {s.exportCsv}
      </button>
      <button type="button" onClick={() => print()}>
        {s.print}
      </button>
      <p role="status" class={state.failed ? 'error' : 'muted'}>
        {state.say}
      </p>
    </div>
  );
}
