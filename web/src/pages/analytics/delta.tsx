import type { ByCurrency } from '../../ui/money.js';
import { changePercent, currenciesOf } from './figures.js';
import type { Formats } from './format.js';
import type { Strings } from './strings.js';

type Said = Pick<Strings, 'up' | 'down' | 'same' | 'noBase' | 'was'>;

/**
 * A figure's change against the earlier period: an arrow and a word for screen readers (the
 * colour is never the only signal), the signed percentage, and the earlier figure. Nothing in
 * the earlier period: "—", there is no percentage of nothing.
 */
export function Delta({
  now,
  before,
  earlier,
  f,
  s,
  code,
  compact,
}: {
  now: number;
  before: number;
  earlier: string;
  f: Formats;
  s: Said;
  code?: string;
  compact?: boolean;
}) {
  const p = changePercent(now, before);
  const trend = p === undefined ? 'none' : p > 0 ? 'up' : p < 0 ? 'down' : 'same';
  return (
    <span class="lt-delta" data-trend={trend}>
      {p === undefined ? (
        <>
          <span aria-hidden="true">— </span>
          <span class="lt-sr">{s.noBase}</span>
        </>
      ) : (
        <>
          <span aria-hidden="true">{trend === 'up' ? '▲' : trend === 'down' ? '▼' : '='} </span>
          <span class="lt-sr">{s[trend as 'up' | 'down' | 'same']} </span>
          <bdi>{f.percent(p, true)}</bdi>
        </>
      )}
      {code && <span class="lt-code"> {code.toUpperCase()}</span>}
      {/* In a table's cell the earlier figure is read, not shown (the cell stays narrow). */}
      <span class={compact ? 'lt-sr' : 'lt-was'}>
        {' '}
        ({s.was} <bdi>{earlier}</bdi>)
      </span>
    </span>
  );
}

interface Change<T> {
  now: T;
  before: T;
  f: Formats;
  s: Said;
  compact?: boolean;
}

/** A count's change. */
export function CountDelta({ now, before, f, s, compact }: Change<number>) {
  return <Delta now={now} before={before} earlier={f.number(before)} f={f} s={s} compact={compact} />;
}

/** Revenue's change currency by currency (one line each; currencies are never added together). */
export function RevenueDelta({ now, before, f, s, compact }: Change<ByCurrency>) {
  const codes = currenciesOf(now, before);
  if (codes.length === 0) return <CountDelta now={0} before={0} f={f} s={s} compact={compact} />;
  return (
    <>
      {codes.map((c) => (
        <Delta
          key={c}
          now={now[c] ?? 0}
          before={before[c] ?? 0}
          earlier={f.money(before[c] ?? 0, c)}
          f={f}
          s={s}
          code={codes.length > 1 ? c : undefined}
          compact={compact}
        />
      ))}
    </>
  );
}
