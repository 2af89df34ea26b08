import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { api, errorText } from '../api/client.js';
import { TimeChart, type ChartSeries } from '../ui/time-chart.js';
import { LangContext, useStrings, useT } from '../i18n/index.js';
import { Empty, Loading, LoadFailure } from '../ui/states.js';
import { Table } from '../ui/table.js';
import { Controls } from './analytics/controls.js';
import { bucketOf, bucketSeconds, type Resolved } from './analytics/range.js';
import { sumFigures } from './analytics/figures.js';
import { useFormats } from './analytics/format.js';
import { hasVisitors, MetricCells, metricColumns, type Group } from './analytics/metrics.js';
import { strings } from './analytics/strings.js';
import { Funnel, Totals } from './analytics/totals.js';
import { resolvedRangeOf, useViewState, type Compare } from './analytics/view-state.js';
import { previousOf } from './analytics/previous.js';
import './analytics/analytics.css';
type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; series: Group[]; links: Group[]; range: Resolved };

/**
 * Clicks, leads, sales and revenue over a chosen range (the analytics page's: today, the last
 * 24 hours, 7 or 30 days, month to date, … or custom dates, in a time zone), and the links with
 * the most clicks. The range is kept in the URL, as on the analytics page.
 */
export function Overview() {
  const t = useT();
  const { lang } = useContext(LangContext);
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const [view, update] = useViewState();
  const compare = view.compare;
  const s = useStrings(strings);
  const range = useMemo(() => resolvedRangeOf(view), [view.range, view.start, view.end, view.tz]);

  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    const query = {
      timezone: view.tz,
      ...(range.startDate ? { startDate: range.startDate } : {}),
      ...(range.endDate ? { endDate: range.endDate } : {}),
      ...(compare ? { compare } : {}),
    };
    Promise.all([
      api.GET('/api/analytics', { params: { query: { ...query, groupBy: 'timeseries', interval: range.interval } } }),
      api.GET('/api/analytics', { params: { query: { ...query, groupBy: 'link', take: 10 } } }),
    ])
      .then(([series, links]) => {
        const failed = series.error ?? links.error;
        if (failed) return { kind: 'error', message: errorText(failed, lang) } as const;
        return { kind: 'ready', series: series.data as Group[], links: links.data as Group[], range } as const;
      })
      .then(
        (next) => live && setState(next),
        (err: unknown) => live && setState({ kind: 'error', message: errorText(err, lang) }),
      );
    return () => {
      live = false;
    };
  }, [range, attempt, compare]);

  return (
    <section class="stack">
      <Controls view={view} update={update} s={s} />
      {state.kind === 'loading' && <Loading />}
      {state.kind === 'error' && <LoadFailure lead={t.failed} message={state.message} retry={() => setAttempt((n) => n + 1)} />}
      {state.kind === 'ready' && <Ready series={state.series} links={state.links} range={state.range} compare={compare} />}
    </section>
  );
}

/** The chart's buckets: the range's own, or (all time) those the answer has. */
function bucketsOf(range: Resolved, series: Group[]): string[] {
  return range.buckets ?? [...new Set(series.map((g) => bucketOf(g.key, range.interval)))].sort();
}

function Ready({ series, links, range, compare }: { series: Group[]; links: Group[]; range: Resolved; compare?: Compare }) {
  const t = useT();
  const s = useStrings(strings);
  const f = useFormats();
  // The API answers only buckets with activity; the chart shows every bucket of the range.
  const chart = useMemo(() => {
    const days = bucketsOf(range, series);
    const byDay = new Map(series.map((g) => [bucketOf(g.key, range.interval), g]));
    const pick = (k: 'clicks' | 'leads' | 'sales') => days.map((d) => byDay.get(d)?.[k] ?? 0);
    const earlier = (k: 'clicks' | 'leads' | 'sales') => days.map((d) => byDay.get(d)?.previous?.[k] ?? 0);
    const lines: ChartSeries[] = [
      { label: t.clicks, values: pick('clicks'), colorVar: '--c-clicks' },
      { label: t.leads, values: pick('leads'), colorVar: '--c-leads' },
      { label: t.sales, values: pick('sales'), colorVar: '--c-sales' },
      ...(compare
        ? (['clicks', 'leads', 'sales'] as const).map((k) => ({
            label: `${t[k]} (${s.earlierSeries})`,
            values: earlier(k),
            colorVar: `--c-${k}`,
            dash: [6, 4],
          }))
        : []),
    ];
    // Each bucket's wall clock, read in UTC (as the chart writes it).
    return { times: days.map(bucketSeconds), series: lines };
  }, [series, range, t, s, compare]);
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
          <TimeChart
            times={chart.times}
            series={chart.series}
            interval={range.interval}
            label={range.interval === 'hour' ? s.chartHour : range.interval === 'day' ? s.chartDay : s.chartMonth}
            timeLabel={t.date}
            lang={f.lang}
            formatNumber={f.number}
          />
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
