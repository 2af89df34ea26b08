import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { api, errorText } from '../api/client.js';
import type { components } from '../api/schema.js';
import { TimeChart } from '../ui/time-chart.js';
import { LangContext, useT } from '../i18n/index.js';
import { addByCurrency, formatByCurrency } from '../ui/money.js';
import { Empty, Loading, LoadFailure } from '../ui/states.js';
import { Table } from '../ui/table.js';

type Group = components['schemas']['AnalyticsGroup'];
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
  const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    const dates = lastDays(days);
    const startDate = dates[0]!;
    const query = { startDate, timezone };
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
  }, [days, attempt]);

  const format = useMemo(() => {
    const number = new Intl.NumberFormat(lang === 'ar' ? 'ar' : 'en');
    return (n: number) => number.format(n);
  }, [lang]);
  return (
    <section class="stack">
      <label class="field-inline">
        <span>{t.range}</span>
        <select value={days} onChange={(e) => setDays(Number(e.currentTarget.value) as (typeof RANGES)[number])}>
          {RANGES.map((d) => (
            <option key={d} value={d}>
              {t[`last${d}`]}
            </option>
          ))}
        </select>
      </label>
      {state.kind === 'loading' && <Loading />}
      {state.kind === 'error' && <LoadFailure lead={t.failed} message={state.message} retry={() => setAttempt((n) => n + 1)} />}
      {state.kind === 'ready' && <Ready series={state.series} links={state.links} days={state.days} lang={lang} format={format} />}
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

function Ready({ series, links, days, lang, format }: { series: Group[]; links: Group[]; days: string[]; lang: string; format: (n: number) => string }) {
  const t = useT();
  const sum = (k: 'clicks' | 'leads' | 'sales') => series.reduce((n, g) => n + Number(g[k]), 0);
  // The API answers only days with activity; the chart shows every day of the range.
  const chart = useMemo(() => {
    const byDay = new Map(series.map((g) => [g.key.slice(0, 10), g]));
    const pick = (k: 'clicks' | 'leads' | 'sales') => days.map((d) => byDay.get(d)?.[k] ?? 0);
    return {
      // Each day's wall clock, read in UTC (as the chart writes it).
      times: days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000),
      series: [
        { label: t.clicks, values: pick('clicks'), colorVar: '--c-clicks' },
        { label: t.leads, values: pick('leads'), colorVar: '--c-leads' },
        { label: t.sales, values: pick('sales'), colorVar: '--c-sales' },
      ],
    };
  }, [series, days, t]);
  const totals = [
    [t.clicks, format(sum('clicks'))],
    [t.leads, format(sum('leads'))],
    [t.sales, format(sum('sales'))],
    // One total per currency: currencies are never added together.
    [t.revenue, formatByCurrency(lang, addByCurrency(...series.map((g) => g.revenue)))],
  ] as const;
  return (
    <>
      <dl class="totals">
        {totals.map(([label, value]) => (
          <div key={label} class="total">
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {sum('clicks') === 0 && links.length === 0 ? (
        <Empty>{t.noData}</Empty>
      ) : (
        <>
          <TimeChart times={chart.times} series={chart.series} interval="day" label={t.chartLabel} timeLabel={t.date} lang={lang} formatNumber={format} />
          <h2>{t.topLinks}</h2>
          <Table columns={[t.link, t.clicks, t.leads, t.sales]}>
            {links.map((g) => (
              <tr key={g.key}>
                <td>
                  <span class="title cell-name">{g.title ?? g.shortUrl}</span>
                  <bdi class="muted cell-name">{g.shortUrl}</bdi>
                </td>
                <td>{format(g.clicks)}</td>
                <td>{format(g.leads)}</td>
                <td>{format(g.sales)}</td>
              </tr>
            ))}
          </Table>
        </>
      )}
    </>
  );
}
