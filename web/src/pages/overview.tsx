import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { api, errorText } from '../api/client.js';
import { TimeChart, type ChartSeries } from '../ui/time-chart.js';
import { LangContext, useStrings, useT } from '../i18n/index.js';
import { Empty, Loading, LoadFailure } from '../ui/states.js';
import { Table } from '../ui/table.js';
import { CompareSelect } from './analytics/compare-select.js';
import { sumFigures } from './analytics/figures.js';
import { useFormats } from './analytics/format.js';
import { hasVisitors, MetricCells, metricColumns, type Group } from './analytics/metrics.js';
import { strings } from './analytics/strings.js';
import { Funnel, Totals } from './analytics/totals.js';
import { useViewState, type Compare } from './analytics/view-state.js';
import { previousOf } from './analytics/previous.js';
import './analytics/analytics.css';
type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; series: Group[]; links: Group[]; days: string[] };

const RANGES = [7, 30, 90] as const;
const DAY_MS = 86_400_000;

/** Clicks, leads, sales and revenue over a chosen range, and the links with the most clicks. */
export function Overview() {
  const t = useT();
  const { lang } = useContext(LangContext);
  const [days, setDays] = useState<(typeof RANGES)[number]>(30);
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [attempt, setAttempt] = useState(0);
  // The comparison is kept in the URL (?compare=previous|year), as on the analytics page.
  const [view, update] = useViewState();
  const compare = view.compare;
  const s = useStrings(strings);
  const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    const dates = lastDays(days);
    const startDate = dates[0]!;
    const query = { startDate, timezone, ...(compare ? { compare } : {}) };
    Promise.all([
      api.GET('/api/analytics', { params: { query: { ...query, groupBy: 'timeseries', interval: 'day' } } }),
      api.GET('/api/analytics', { params: { query: { ...query, groupBy: 'link', take: 10 } } }),
    ])
      .then(([series, links]) => {
        const failed = series.error ?? links.error;
        if (failed) return { kind: 'error', message: errorText(failed, lang) } as const;
        return { kind: 'ready', series: series.data as Group[], links: links.data as Group[], days: dates } as const;
      })
      .then(
        (next) => live && setState(next),
        (err: unknown) => live && setState({ kind: 'error', message: errorText(err, lang) }),
      );
    return () => {
      live = false;
    };
  }, [days, attempt, compare]);

  return (
    <section class="stack">
      <div class="lt-controls">
      <label class="field">
        <span>{t.range}</span>
        <select value={days} onChange={(e) => setDays(Number(e.currentTarget.value) as (typeof RANGES)[number])}>
          {RANGES.map((d) => (
            <option key={d} value={d}>
              {t[`last${d}`]}
            </option>
          ))}
        </select>
      </label>
      <CompareSelect value={compare} onChange={(c) => update({ compare: c })} s={s} />
      </div>
      {state.kind === 'loading' && <Loading />}
      {state.kind === 'error' && <LoadFailure lead={t.failed} message={state.message} retry={() => setAttempt((n) => n + 1)} />}
      {state.kind === 'ready' && <Ready series={state.series} links={state.links} days={state.days} compare={compare} />}
    </section>
  );
}

/** The last n local dates (YYYY-MM-DD), oldest first, today last. */
function lastDays(n: number): string[] {
  const pad = (v: number) => String(v).padStart(2, '0');
  return Array.from({ length: n }, (_, i) => {
    const d = new Date(Date.now() - (n - 1 - i) * DAY_MS);
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  });
}

function Ready({ series, links, days, compare }: { series: Group[]; links: Group[]; days: string[]; compare?: Compare }) {
  const t = useT();
  const s = useStrings(strings);
  const f = useFormats();
  // The API answers only days with activity; the chart shows every day of the range.
  const chart = useMemo(() => {
    const byDay = new Map(series.map((g) => [g.key.slice(0, 10), g]));
    const pick = (k: 'clicks' | 'leads' | 'sales') => days.map((d) => byDay.get(d)?.[k] ?? 0);
    const earlier = (k: 'clicks' | 'leads' | 'sales') => days.map((d) => byDay.get(d)?.previous?.[k] ?? 0);
    const lines: ChartSeries[] = [
      { label: t.clicks, values: pick('clicks'), colorVar: '--c-clicks' },
      { label: t.leads, values: pick('leads'), colorVar: '--c-leads' },
      { label: t.sales, values: pick('sales'), colorVar: '--c-sales' },
      ...(compare ? (['clicks', 'leads', 'sales'] as const).map((k) => ({ label: `${t[k]} (${s.earlierSeries})`, values: earlier(k), colorVar: `--c-${k}`, dash: [6, 4] })) : []),
    ];
    // Each day's wall clock, read in UTC (as the chart writes it).
    return { times: days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000), series: lines };
  }, [series, days, t, s, compare]);
  const now = useMemo(() => sumFigures(series), [series]);
  const before = useMemo(() => (compare ? sumFigures(series.map(previousOf)) : undefined), [series, compare]);
  const visitors = hasVisitors(links);
  return (
    <>
      <Totals now={now} before={before} s={s} f={f} />
      {now.clicks === 0 && links.length === 0 ? (
        <Empty>{t.noData}</Empty>
      ) : (
        <>
          <Funnel now={now} s={s} f={f} />
          <TimeChart times={chart.times} series={chart.series} interval="day" label={t.chartLabel} timeLabel={t.date} lang={f.lang} formatNumber={f.number} />
          <h2 id="top-links">{t.topLinks}</h2>
          <Table class="lt-breakdown lt-collapse" region={{ class: 'lt-scroll', labelledBy: 'top-links' }} columns={[t.link, ...metricColumns(s, visitors)]}>
            {links.map((g) => (
              <tr key={g.key}>
                <td>
                  <span class="title cell-name">{g.title ?? g.shortUrl}</span>
                  <bdi class="muted cell-name">{g.shortUrl}</bdi>
                </td>
                <MetricCells g={g} f={f} s={s} visitors={visitors} compare={compare !== undefined} />
              </tr>
            ))}
          </Table>
        </>
      )}
    </>
  );
}
