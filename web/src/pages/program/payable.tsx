/**
 * What is payable now and what waits for review, per currency (never added across currencies):
 * read from GET /api/commissions, every page of it, and summed with BigInt.
 */
import { api } from '../../api/client.js';
import { useLang, useStrings } from '../../i18n/index.js';
import { formatMoney } from '../../ui/money.js';
import { LoadFailure, Loading, useLoad } from '../../ui/states.js';
import { strings } from './strings.js';
import { totalsByCurrency } from './totals.js';
import type { Commission, CommissionStatus } from './types.js';

const PAGE = 5000;
/** Pages read at most (100,000 commissions): beyond, the figures say they are partial. */
const MAX_PAGES = 20;

/** Every commission in a status, and whether the reading stopped short. */
export async function allCommissions(
  status: CommissionStatus,
  currency?: string,
): Promise<{ data?: { rows: Commission[]; partial: boolean }; error?: unknown }> {
  const rows: Commission[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const { data, error } = await api.GET('/api/commissions', {
      params: { query: { status, take: PAGE, skip: page * PAGE, sort: 'asc', ...(currency ? { currency } : {}) } },
    });
    if (error !== undefined || !data) return { error };
    rows.push(...data);
    if (data.length < PAGE) return { data: { rows, partial: false } };
  }
  return { data: { rows, partial: true } };
}

/** Payable commissions no pending payout has claimed yet (a claimed one reads payable until its payout completes). */
export const unclaimed = (rows: Commission[]) => rows.filter((c) => c.payoutId === null);

/** Totals per currency as a description list: one figure per currency, or a dash. */
export function TotalsList({ totals, label }: { totals: Map<string, bigint>; label: string }) {
  const lang = useLang();
  return (
    <div class="total program-total">
      <dt>{label}</dt>
      <dd>
        {totals.size === 0 ? (
          '—'
        ) : (
          <ul class="program-currencies">
            {[...totals].map(([code, minor]) => (
              <li key={code} data-currency={code}>
                <bdi>{formatMoney(lang, minor, code)}</bdi>
              </li>
            ))}
          </ul>
        )}
      </dd>
    </div>
  );
}

export function PayableSummary() {
  const s = useStrings(strings);
  const [payable, reloadPayable] = useLoad(() => allCommissions('payable'));
  const [held, reloadHeld] = useLoad(() => allCommissions('held'));
  if (payable.kind === 'error' || held.kind === 'error')
    return (
      <LoadFailure
        error={payable.kind === 'error' ? payable.error : held.kind === 'error' ? held.error : undefined}
        retry={() => {
          reloadPayable();
          reloadHeld();
        }}
      />
    );
  if (payable.kind === 'loading' || held.kind === 'loading') return <Loading />;
  return (
    <section aria-labelledby="program-money" class="stack-tight">
      <h2 id="program-money">{s.moneyTitle}</h2>
      <dl class="totals program-totals">
        <TotalsList totals={totalsByCurrency(unclaimed(payable.data.rows))} label={s.payableNow} />
        <TotalsList totals={totalsByCurrency(payable.data.rows.filter((c) => c.payoutId !== null))} label={s.inPayouts} />
        <TotalsList totals={totalsByCurrency(held.data.rows)} label={s.heldForReview} />
      </dl>
      {(payable.data.partial || held.data.partial) && <p class="hint">{s.partialTotals}</p>}
    </section>
  );
}
