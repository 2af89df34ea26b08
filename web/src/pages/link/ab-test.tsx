import { useMemo, useState } from 'preact/hooks';
import { api, errorText } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { useLang, useStrings } from '../../i18n/index.js';
import { useConfirm } from '../../ui/confirm.js';
import { Empty, Loading, LoadFailure, ErrorLine, useLoad } from '../../ui/states.js';
import { TimeChart, type ChartSeries } from '../../ui/time-chart.js';
import type { Formats } from '../analytics/format.js';
import { bucketSeconds } from '../analytics/range.js';
import { abStrings, type AbStrings } from './ab-strings.js';
import './ab-test.css';

type Link = components['schemas']['Link'];
type Result = components['schemas']['LinkTestResult'];
type Metric = Result['metric'];

const LETTERS = ['A', 'B', 'C', 'D'];
const DAY_MS = 86_400_000;

/** The link's A/B test (GET /api/links/{id}/test): the variants side by side, the days, and setting one up or ending it. */
export function AbTest({ link, canWrite, f, onLinkChanged }: { link: Link; canWrite: boolean; f: Formats; onLinkChanged: () => void }) {
  const s = useStrings(abStrings);
  // Loaded again whenever the link's test changes (a new test, ended, applied).
  const [state, reload] = useLoad(() => api.GET('/api/links/{id}/test', { params: { path: { id: link.id } } }));
  const none = state.kind === 'error' && (state.error as { error?: { code?: string } } | undefined)?.error?.code === 'link_test_none';
  const changed = () => {
    reload();
    onLinkChanged();
  };
  return (
    <section class="stack ab" aria-labelledby="link-ab">
      <h2 id="link-ab">{s.heading}</h2>
      {state.kind === 'loading' && <Loading />}
      {state.kind === 'error' && !none && <LoadFailure lead={s.failed} error={state.error} retry={reload} />}
      {none && (
        <>
          <Empty>{s.none}</Empty>
          {canWrite && <TestForm link={link} s={s} onStarted={changed} />}
        </>
      )}
      {state.kind === 'ready' && (
        <>
          <Summary result={state.data} s={s} f={f} />
          <Variants result={state.data} s={s} f={f} />
          <Days result={state.data} s={s} f={f} />
          {canWrite && state.data.status === 'running' && <EndActions link={link} result={state.data} s={s} f={f} onEnded={changed} />}
          {canWrite && state.data.status === 'completed' && <TestForm link={link} s={s} onStarted={changed} collapsed />}
        </>
      )}
    </section>
  );
}

const nameOf = (s: AbStrings, i: number) => s.variant(LETTERS[i] ?? String(i + 1));

/** Where the test stands: running until, or completed with its winner; what it is judged by. */
function Summary({ result, s, f }: { result: Result; s: AbStrings; f: Formats }) {
  const running = result.status === 'running';
  return (
    <p class="ab-summary">
      {running ? s.running(f.dateTime(result.endsAt)) : s.completed(f.dateTime(result.completedAt ?? result.endsAt))}{' '}
      {!running && (result.winner === null ? s.noWinner : s.winnerIs(nameOf(s, result.winner)))} {s.byMetric[result.metric]}{' '}
      {running && (result.autoApply ? s.autoApply : s.manual)}
    </p>
  );
}

/** The score the winner is chosen by: the conversion rate, or net revenue in the test's currency per click. */
const scoreOf = (r: Result, v: Result['variants'][number]) =>
  r.metric === 'revenue' ? (v.clicks ? (v.revenue[r.currency ?? ''] ?? 0) / v.clicks : 0) : v.conversionRate;

/** The variants side by side (a column each; one under the other on a phone). */
function Variants({ result, s, f }: { result: Result; s: AbStrings; f: Formats }) {
  // While running, the one ahead now (none while nothing converted); once completed, the winner.
  const leader = useMemo(() => {
    if (result.status === 'completed') return result.winner;
    let best: number | null = null;
    result.variants.forEach((v, i) => {
      if (scoreOf(result, v) > (best === null ? 0 : scoreOf(result, result.variants[best]!))) best = i;
    });
    return best;
  }, [result]);
  return (
    <ol class="ab-variants" style={{ '--ab-columns': String(result.variants.length) }}>
      {result.variants.map((v, i) => {
        const name = nameOf(s, i);
        const marked = leader === i;
        const currency = result.currency ?? Object.keys(v.revenue)[0];
        return (
          <li key={i} class={marked ? 'ab-variant ab-lead' : 'ab-variant'} aria-label={name}>
            <h3>
              <span class={`ab-swatch ab-c${i}`} aria-hidden="true" />
              {name}
              {marked && <span class="ab-badge">{result.status === 'completed' ? s.winner : s.leading}</span>}
            </h3>
            <a href={v.url} dir="ltr" rel="noreferrer" class="ab-url">
              {v.url}
            </a>
            <dl class="ab-figures">
              <div>
                <dt>{s.weight}</dt>
                <dd>{f.percent(v.weight)}</dd>
              </div>
              <div>
                <dt>{s.clicks}</dt>
                <dd>{f.number(v.clicks)}</dd>
              </div>
              <div>
                <dt>{s.conversions}</dt>
                <dd>{f.number(v.conversions)}</dd>
              </div>
              <div>
                <dt>{s.rate}</dt>
                <dd>{f.percent(v.conversionRate * 100)}</dd>
              </div>
              <div>
                <dt>{s.revenue}</dt>
                <dd>{currency ? f.money(v.revenue[currency] ?? 0, currency) : '0'}</dd>
              </div>
              {result.metric === 'revenue' && currency && (
                <div>
                  <dt>{s.revenuePerClick}</dt>
                  <dd>{f.money(v.clicks ? Math.round((v.revenue[currency] ?? 0) / v.clicks) : 0, currency)}</dd>
                </div>
              )}
            </dl>
            <div class="ab-best">
              <span>{s.best}</span>
              {v.probabilityBest === null ? (
                <span class="muted">{s.bestNone}</span>
              ) : (
                <>
                  <strong>{f.percent(v.probabilityBest * 100)}</strong>
                  <meter min={0} max={1} value={v.probabilityBest} aria-label={`${s.best}: ${name}`} />
                </>
              )}
            </div>
          </li>
        );
      })}
    </ol>
  );
}

/** Each UTC day from the first with clicks to the last, every day present (0 where nothing happened). */
function allDays(days: Result['days']): string[] {
  if (days.length === 0) return [];
  const out: string[] = [];
  const last = Date.parse(days[days.length - 1]!.day);
  for (let at = Date.parse(days[0]!.day); at <= last; at += DAY_MS) out.push(new Date(at).toISOString().slice(0, 10));
  return out;
}

/** The day-by-day chart: each variant's clicks (a line), and its conversions (dashed). */
function Days({ result, s, f }: { result: Result; s: AbStrings; f: Formats }) {
  const chart = useMemo(() => {
    const byDay = new Map(result.days.map((d) => [d.day, d]));
    const days = allDays(result.days);
    const series: ChartSeries[] = result.variants.flatMap((_, i) => [
      { label: s.clicksOf(nameOf(s, i)), values: days.map((d) => byDay.get(d)?.clicks[i] ?? 0), colorVar: `--ab-c${i}` },
      { label: s.conversionsOf(nameOf(s, i)), values: days.map((d) => byDay.get(d)?.conversions[i] ?? 0), colorVar: `--ab-c${i}`, dash: [6, 4] },
    ]);
    return { times: days.map(bucketSeconds), series };
  }, [result, s]);
  if (chart.times.length === 0) return <Empty>{s.noDays}</Empty>;
  return <TimeChart times={chart.times} series={chart.series} interval="day" label={s.chart} timeLabel={s.chartDay} lang={f.lang} formatNumber={f.number} />;
}

/** Ending the running test: now with the winner, with a chosen variant, or without a winner. */
function EndActions({ link, result, s, f, onEnded }: { link: Link; result: Result; s: AbStrings; f: Formats; onEnded: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const { confirm, dialog } = useConfirm();
  const act = async (call: () => Promise<{ error?: unknown }>) => {
    setBusy(true);
    setError(undefined);
    try {
      const { error: failed } = await call();
      if (failed !== undefined) setError(errorText(failed, f.lang));
      else onEnded();
    } catch (e) {
      setError(errorText(e, f.lang));
    } finally {
      setBusy(false);
    }
  };
  const complete = (variant?: number) =>
    act(() => api.POST('/api/links/{id}/test/complete', { params: { path: { id: link.id } }, body: variant === undefined ? {} : { variant } }));
  const stop = async () => {
    if (!(await confirm({ title: s.stop, body: s.confirmStop, confirm: s.stop, danger: true }))) return;
    await act(() => api.PUT('/api/links', { body: [{ id: link.id, test: null }] as never }));
  };
  return (
    <div class="stack-tight">
      <div class="actions ab-actions">
        <button type="button" disabled={busy} onClick={() => void complete()}>
          {busy ? s.ending : s.endNow}
        </button>
        {result.variants.map((_, i) => (
          <button key={i} type="button" disabled={busy} onClick={() => void complete(i)}>
            {s.apply(nameOf(s, i))}
          </button>
        ))}
        <button type="button" class="danger" disabled={busy} onClick={() => void stop()}>
          {s.stop}
        </button>
      </div>
      <ErrorLine error={error} />
      {dialog}
    </div>
  );
}

interface Row {
  url: string;
  weight: string;
}

/** Equal shares of 100 for n variants, the rest on the first. */
const equalWeights = (n: number): string[] => Array.from({ length: n }, (_, i) => String(Math.floor(100 / n) + (i === 0 ? 100 % n : 0)));

/** Setting up a test: 2 to 4 destinations with their shares, the end, what judges it. The API checks it (its 400 names the field). */
function TestForm({ link, s, onStarted, collapsed = false }: { link: Link; s: AbStrings; onStarted: () => void; collapsed?: boolean }) {
  const lang = useLang();
  const [open, setOpen] = useState(!collapsed);
  const [rows, setRows] = useState<Row[]>(() => [
    { url: link.url, weight: '50' },
    { url: '', weight: '50' },
  ]);
  const [ends, setEnds] = useState(() => new Date(Date.now() + 14 * DAY_MS).toISOString().slice(0, 10));
  const [metric, setMetric] = useState<Metric>('sales');
  const [currency, setCurrency] = useState('usd');
  const [autoApply, setAutoApply] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const reweigh = (next: Row[]) => equalWeights(next.length).map((weight, i) => ({ ...next[i]!, weight }));
  if (!open)
    return (
      <div class="actions">
        <button type="button" onClick={() => setOpen(true)}>
          {s.newTest}
        </button>
      </div>
    );
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    const test = {
      variants: rows.map((r) => ({ url: r.url.trim(), weight: Number(r.weight) })),
      // The end of the chosen day, UTC.
      endsAt: `${ends}T23:59:59Z`,
      metric,
      ...(metric === 'revenue' ? { currency: currency.trim() } : {}),
      autoApply,
    };
    try {
      const { error: failed } = await api.PUT('/api/links', { body: [{ id: link.id, test }] as never });
      if (failed !== undefined) setError(errorText(failed, lang));
      else onStarted();
    } catch (err) {
      setError(errorText(err, lang));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="stack-tight ab-form" onSubmit={(e) => void submit(e)}>
      <h3>{s.setUp}</h3>
      <ol class="ab-rows">
        {rows.map((r, i) => (
          <li key={i} class="ab-row">
            <label class="field ab-url-field">
              <span>
                {nameOf(s, i)} · {s.url}
              </span>
              <input
                type="url"
                dir="ltr"
                required
                value={r.url}
                onInput={(e) => setRows(rows.map((x, j) => (j === i ? { ...x, url: e.currentTarget.value } : x)))}
              />
            </label>
            <label class="field ab-weight-field">
              <span>{s.weight} (%)</span>
              <input
                type="number"
                min={10}
                max={90}
                step={1}
                required
                value={r.weight}
                onInput={(e) => setRows(rows.map((x, j) => (j === i ? { ...x, weight: e.currentTarget.value } : x)))}
              />
            </label>
            {rows.length > 2 && (
              <button type="button" class="ab-remove" onClick={() => setRows(reweigh(rows.filter((_, j) => j !== i)))}>
                {s.remove}
              </button>
            )}
          </li>
        ))}
      </ol>
      <p class="hint">{s.weightsHint}</p>
      {rows.length < 4 && (
        <div class="actions">
          <button type="button" onClick={() => setRows(reweigh([...rows, { url: '', weight: '0' }]))}>
            {s.add}
          </button>
        </div>
      )}
      <div class="ab-settings">
        <label class="field">
          <span>{s.ends}</span>
          <input type="date" required value={ends} onInput={(e) => setEnds(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>{s.metric}</span>
          <select value={metric} onChange={(e) => setMetric(e.currentTarget.value as Metric)}>
            {(['leads', 'sales', 'revenue'] as const).map((m) => (
              <option key={m} value={m}>
                {s.metrics[m]}
              </option>
            ))}
          </select>
        </label>
        {metric === 'revenue' && (
          <label class="field">
            <span>{s.currency}</span>
            <input dir="ltr" required maxLength={3} value={currency} onInput={(e) => setCurrency(e.currentTarget.value)} />
          </label>
        )}
      </div>
      <label class="check">
        <input type="checkbox" checked={autoApply} onChange={(e) => setAutoApply(e.currentTarget.checked)} />
        <span>{s.applyAtEnd}</span>
      </label>
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? s.starting : s.start}
        </button>
      </div>
    </form>
  );
}
