import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { formatMoney } from '../../ui/money.js';
import { Loaded, useLoad } from '../../ui/states.js';
import { TimeChart } from '../../ui/time-chart.js';
import { useFormats } from '../analytics/format.js';
import { programHeader } from './program-header.js';
import { strings } from './strings.js';

const DAY_S = 86_400;
const DAYS = 30;

/** The last 30 UTC days, oldest first: each day's start in seconds and its analytics key. */
function lastDays(now = Date.now()): { seconds: number[]; keys: string[]; start: string } {
  const today = Math.floor(now / 1000 / DAY_S) * DAY_S;
  const seconds = Array.from({ length: DAYS }, (_, i) => today - (DAYS - 1 - i) * DAY_S);
  const keys = seconds.map((s) => `${new Date(s * 1000).toISOString().slice(0, 10)}T00:00:00Z`);
  return { seconds, keys, start: keys[0]!.slice(0, 10) };
}

/** Clicks, leads and sales per UTC day of the last 30, and what each day earned (the partner's own links only). */
export function Figures({ programId, currency }: { programId: string; currency: string }) {
  const s = useStrings(strings);
  const f = useFormats();
  const days = lastDays();
  const [series, reload] = useLoad(() =>
    api.GET('/api/partner/analytics', {
      params: { ...programHeader(programId), query: { groupBy: 'timeseries', interval: 'day', startDate: days.start, take: 5000 } },
    }),
  );
  return (
    <section aria-labelledby="portal-figures">
      <h2 id="portal-figures">{s.figures}</h2>
      <Loaded state={series} retry={reload}>
        {(groups) => {
          const byKey = new Map(groups.map((g) => [g.key, g]));
          const of = (k: 'clicks' | 'leads' | 'sales') => days.keys.map((key) => byKey.get(key)?.[k] ?? 0);
          const sum = (k: 'clicks' | 'leads' | 'sales') => of(k).reduce((a, b) => a + b, 0);
          const earned = groups.reduce((n, g) => n + Number(g.earnings[currency] ?? 0), 0);
          return (
            <>
              <dl class="portal-cards">
                {(['clicks', 'leads', 'sales'] as const).map((k) => (
                  <div key={k} class="portal-card">
                    <dt>{s[k]}</dt>
                    <dd>{f.number(sum(k))}</dd>
                  </div>
                ))}
                <div class="portal-card">
                  <dt>{s.earned}</dt>
                  <dd>{formatMoney(f.lang, earned, currency)}</dd>
                </div>
              </dl>
              <TimeChart
                times={days.seconds}
                series={[
                  { label: s.clicks, values: of('clicks'), colorVar: '--c-clicks' },
                  { label: s.leads, values: of('leads'), colorVar: '--c-leads' },
                  { label: s.sales, values: of('sales'), colorVar: '--c-sales' },
                ]}
                interval="day"
                label={s.chart}
                timeLabel={s.date}
                lang={f.lang}
                formatNumber={f.number}
              />
            </>
          );
        }}
      </Loaded>
    </section>
  );
}
