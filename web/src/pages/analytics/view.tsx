import { useMemo } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { Breakdown, CARDS, type AnalyticsQuery, type Group, type RowFilter } from './breakdown.js';
import { Controls, FilterChips, focusChip, rememberFilterName } from './controls.js';
import { bucketNamer, useFormats } from './format.js';
import { bucketOf, bucketSeconds, monthRange, wallHour, type Interval } from './range.js';
import { useLoad } from './load.js';
import { strings } from './strings.js';
import { TimeChart, type ChartSeries } from '../../ui/time-chart.js';
import { GeoCredit } from '../../ui/geo-credit.js';
import { FILTER_PARAMS, resolvedRangeOf, useViewState, type Filters, type ViewState } from './view-state.js';
import './analytics.css';
import { Empty, Loading, LoadFailure } from '../../ui/states.js';
import { Table } from '../../ui/table.js';
import { hasVisitors, MetricCells, metricColumns } from './metrics.js';
import { sumFigures } from './figures.js';
import { previousOf } from './previous.js';
import { Funnel, Totals } from './totals.js';
import { ReportActions, ReportSummary } from './report-actions.js';

/**
 * A workspace's analytics, or one link's (linkId): date range and time zone, the active
 * filters, totals, the time chart and the breakdown cards. Its state is the page's URL query.
 */
export function AnalyticsView({ linkId }: { linkId?: string }) {
  const s = useStrings(strings);
  const f = useFormats();
  const [view, update] = useViewState();
  const resolved = useMemo(() => resolvedRangeOf(view), [view.range, view.start, view.end, view.tz]);
  const query = useMemo<AnalyticsQuery>(
    () => ({
      timezone: view.tz,
      ...(resolved.startDate ? { startDate: resolved.startDate } : {}),
      ...(resolved.endDate ? { endDate: resolved.endDate } : {}),
      // Every filter of the URL (values readView checked against the API's rules); a link's page fixes linkId.
      ...(view.filters as Partial<AnalyticsQuery>),
      ...(linkId ? { linkId } : {}),
      // All time has no earlier period to compare with.
      ...(view.compare && resolved.startDate ? { compare: view.compare } : {}),
    }),
    [resolved, view.tz, view.filters, linkId, view.compare],
  );
  const key = JSON.stringify(query);

  // The rows come with the interval and buckets they were asked for.
  const series = useLoad<{ rows: Group[]; interval: Interval; buckets?: string[] }>(
    () =>
      api
        .GET('/api/analytics', { params: { query: { ...query, groupBy: 'timeseries', interval: resolved.interval, sort: 'asc', take: 5000 } } })
        .then((r) => (r.error ? r : { data: { rows: r.data as Group[], interval: resolved.interval, buckets: resolved.buckets } })),
    [key, resolved],
    f.lang,
  );

  const onFilter = (r: RowFilter) => {
    rememberFilterName(r.param, r.value, r.label);
    update({ filters: { ...view.filters, [r.param]: r.value } });
    focusChip(r.param);
  };
  // A link row opens the link's page in the same range and zone, unfiltered.
  const carry = useMemo(() => {
    const q = new URLSearchParams(location.search);
    for (const k of [...FILTER_PARAMS, 'by']) q.delete(k);
    const text = q.toString();
    return text ? `?${text}` : '';
  }, [view]);
  const cards = linkId ? CARDS.filter((c) => c.id !== 'links') : CARDS;
  const shownDim = (card: (typeof CARDS)[number]) => card.dims.find((d) => d === view.by[card.id]) ?? card.dims[0]!;
  const filtered = FILTER_PARAMS.some((p) => view.filters[p] !== undefined && !(linkId && p === 'linkId'));

  return (
    <div class="stack lt-analytics">
      <Controls view={view} update={update} s={s} />
      <FilterChips view={view} update={update} s={s} lang={f.lang} fixed={linkId ? 'linkId' : undefined} />
      <ReportSummary view={view} resolved={resolved} query={query} fixed={linkId ? 'linkId' : undefined} s={s} f={f} />
      <ReportActions
        view={view}
        resolved={resolved}
        query={query}
        fixed={linkId ? 'linkId' : undefined}
        breakdowns={cards.map((c) => ({ title: s[c.title], dim: shownDim(c) }))}
        name={linkId ? `link-${linkId.slice(0, 8)}` : 'workspace'}
        s={s}
        f={f}
      />
      {!series.data && series.loading && <Loading />}
      {series.error && <LoadFailure lead={s.failed} message={series.error} retry={series.retry} />}
      {series.data && !series.error && (
        <div class="stack lt-result" aria-busy={series.loading}>
          <Series {...series.data} tz={view.tz} filtered={filtered} compare={query.compare !== undefined} />
        </div>
      )}
      {series.data && !series.error && series.data.rows.length > 0 && (
        <div class="lt-cards">
          {cards.map((card) => {
            const chosen = shownDim(card);
            return (
              <Breakdown
                key={card.id}
                card={card}
                dim={chosen}
                onDim={(d) => update({ by: byWith(view, card.id, d === card.dims[0] ? undefined : d) })}
                query={query}
                onFilter={onFilter}
                filters={query as Filters}
                carry={carry}
                footer={card.id === 'location' ? <GeoCredit /> : undefined}
                s={s}
                f={f}
              />
            );
          })}
        </div>
      )}
    </div>
  );
}

function byWith(view: ViewState, card: string, dim: string | undefined): Record<string, string> {
  const by = { ...view.by };
  if (dim) by[card] = dim;
  else delete by[card];
  return by;
}

interface SeriesProps {
  rows: Group[];
  interval: Interval;
  buckets?: string[];
  tz: string;
  filtered: boolean;
  compare: boolean;
}

/** Totals and the funnel, the chart over every bucket of the range (the earlier period dashed), and the same numbers as a table. */
function Series({ rows, interval, buckets, tz, filtered, compare }: SeriesProps) {
  const s = useStrings(strings);
  const f = useFormats();
  const chart = useMemo(() => {
    const byBucket = new Map<string, Group>();
    for (const g of rows) {
      const b = bucketOf(g.key, interval);
      const had = byBucket.get(b);
      // A repeated wall-clock hour (the end of summer time) adds up.
      byBucket.set(b, had ? mergeGroups(had, g) : g);
    }
    const all = buckets ?? (rows.length ? monthRange(bucketOf(rows[0]!.key, 'month'), wallHour(Date.now(), tz).slice(0, 7)) : []);
    const pick = (k: 'clicks' | 'leads' | 'sales') => all.map((b) => byBucket.get(b)?.[k] ?? 0);
    const earlier = (k: 'clicks' | 'leads' | 'sales') => all.map((b) => byBucket.get(b)?.previous?.[k] ?? 0);
    const series: ChartSeries[] = [
      { label: s.clicks, values: pick('clicks'), colorVar: '--c-clicks' },
      { label: s.leads, values: pick('leads'), colorVar: '--c-leads' },
      { label: s.sales, values: pick('sales'), colorVar: '--c-sales' },
      ...(compare
        ? (['clicks', 'leads', 'sales'] as const).map((k) => ({
            label: `${s[k]} (${s.earlierSeries})`,
            values: earlier(k),
            colorVar: `--c-${k}`,
            dash: [6, 4],
          }))
        : []),
    ];
    return { times: all.map(bucketSeconds), series, active: all.filter((b) => byBucket.has(b)).map((b) => [b, byBucket.get(b)!] as const) };
  }, [rows, interval, buckets, tz, s, compare]);
  const bucketName = useMemo(() => bucketNamer(interval, f.lang), [interval, f.lang]);
  const now = useMemo(() => sumFigures(rows), [rows]);
  const before = useMemo(() => (compare ? sumFigures(rows.map(previousOf)) : undefined), [rows, compare]);
  const visitors = hasVisitors(rows);
  const label = interval === 'hour' ? s.chartHour : interval === 'day' ? s.chartDay : s.chartMonth;
  return (
    <>
      <Totals now={now} before={before} s={s} f={f} />
      {rows.length === 0 ? (
        <Empty>{filtered ? s.emptyFiltered : s.empty}</Empty>
      ) : (
        <>
          <Funnel now={now} s={s} f={f} />
          <TimeChart times={chart.times} series={chart.series} interval={interval} label={label} timeLabel={s.time} lang={f.lang} formatNumber={f.number} />
          <details class="lt-details">
            <summary>{s.chartTable}</summary>
            <Table class="lt-collapse" region={{ class: 'lt-scroll', label: s.chartTableLabel }} columns={[s.time, ...metricColumns(s, visitors)]}>
              {chart.active.map(([b, g]) => (
                <tr key={b}>
                  <td>{bucketName(b)}</td>
                  <MetricCells g={g} f={f} s={s} visitors={visitors} compare={compare} />
                </tr>
              ))}
            </Table>
          </details>
        </>
      )}
    </>
  );
}

/** Two rows of one bucket added up (figures, earlier figures, visitors). */
function mergeGroups(a: Group, b: Group): Group {
  const sum = sumFigures([a, b]);
  const previous = a.previous || b.previous ? { previous: sumFigures([previousOf(a), previousOf(b)]) } : {};
  return { ...a, ...sum, ...previous } as Group;
}
