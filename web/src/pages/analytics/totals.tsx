import { CountDelta, RevenueDelta } from './delta.js';
import { funnelShares, type Figures } from './figures.js';
import type { Formats } from './format.js';
import type { Strings } from './strings.js';
import { Amounts } from './metrics.js';

interface Props {
  now: Figures;
  /** The earlier period's figures, when the view compares. */
  before?: Figures;
  s: Strings;
  f: Formats;
}

type Count = 'visitors' | 'clicks' | 'leads' | 'sales';

/**
 * The period's totals (visitors when the API counts them, clicks, leads, sales, revenue per
 * currency), each with its change when the view compares. The figure itself is the first
 * thing of its <dd>, so it reads alone when nothing is compared.
 */
export function Totals({ now, before, s, f }: Props) {
  const counts: Count[] = now.visitors === undefined ? ['clicks', 'leads', 'sales'] : ['clicks', 'visitors', 'leads', 'sales'];
  return (
    <section aria-label={s.totals}>
      <dl class="totals">
        {counts.map((k) => (
          <div key={k} class="total">
            <dt>{s[k]}</dt>
            <dd>
              <span class="lt-now">{f.number(now[k] ?? 0)}</span>
              {before?.[k] !== undefined && <CountDelta now={now[k] ?? 0} before={before[k]} f={f} s={s} />}
            </dd>
          </div>
        ))}
        <div class="total lt-total-money">
          <dt>{s.revenue}</dt>
          <dd>
            <span class="lt-now">
              <Amounts amounts={now.revenue} f={f} />
            </span>
            {before && <RevenueDelta now={now.revenue} before={before.revenue} f={f} s={s} />}
          </dd>
        </div>
      </dl>
    </section>
  );
}

/** Clicks → leads → sales, each step's bar against clicks and its conversion rates (visitors beside clicks when counted). */
export function Funnel({ now, s, f }: Props) {
  const r = funnelShares(now);
  const pct = (p: { share: number | undefined }) => (p.share === undefined ? '—' : f.percent(p.share));
  // A later step counting more than the one before is said in words, not as a share over 100 %.
  const several = [r.leadsOfClicks.several && s.severalLeadsPerClick, (r.salesOfLeads.several || r.salesOfClicks.several) && s.severalSalesPerLead].filter(
    Boolean,
  );
  const width = (n: number) => (now.clicks > 0 ? Math.min(100, (100 * n) / now.clicks) : 0);
  const steps = [
    { key: 'clicks', n: now.clicks, note: now.visitors === undefined ? '' : `${s.visitors}: ${f.number(now.visitors)}` },
    { key: 'leads', n: now.leads, note: `${pct(r.leadsOfClicks)} ${s.ofClicks}` },
    { key: 'sales', n: now.sales, note: `${pct(r.salesOfLeads)} ${s.ofLeads} · ${pct(r.salesOfClicks)} ${s.ofClicks}` },
  ] as const;
  return (
    <section class="lt-funnel" aria-labelledby="lt-funnel-title">
      <h2 id="lt-funnel-title">{s.funnel}</h2>
      <ol aria-label={s.funnelLabel}>
        {steps.map((step) => (
          <li key={step.key} data-step={step.key}>
            <span class="lt-step-name">{s[step.key]}</span>
            <span class="lt-step-n">{f.number(step.n)}</span>
            <svg class="lt-bar" viewBox="0 0 100 4" preserveAspectRatio="none" aria-hidden="true" focusable="false">
              <rect width={width(step.n)} height="4" />
            </svg>
            {step.note && <span class="lt-step-note">{step.note}</span>}
          </li>
        ))}
      </ol>
      {several.map((text) => (
        <p key={text as string} class="muted lt-funnel-note">
          {text}
        </p>
      ))}
    </section>
  );
}
