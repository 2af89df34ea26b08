/**
 * A partner's figures as GET /api/partners?withStats=true gives them (operations.md §18): revenue
 * and earnings per currency, each in its currency's minor unit, never added across currencies.
 * Shared by the Partners page and the Program page's earnings by partner.
 */
import { api } from '../../api/client.js';
import { useLang, useStrings } from '../../i18n/index.js';
import { formatByCurrency, formatMoney } from '../../ui/money.js';
import { strings } from './strings.js';
import type { Partner, PartnerStats } from './types.js';

/** How many partners one read brings (the API's largest page); more are left out, and the page says so. */
export const PARTNERS_READ = 5000;

/** Every partner (up to PARTNERS_READ), newest first, with their figures of the last 30 days. */
export const partnersWithStats = () =>
  api.GET('/api/partners', { params: { query: { withStats: true, take: PARTNERS_READ, sort: 'desc' } } }) as Promise<{ data?: Partner[]; error?: unknown }>;

const STATES = ['pending', 'held', 'payable', 'paid'] as const;

/** A partner's revenue per currency ("$49.00 · €20.00"), or a dash. */
export function Revenue({ stats }: { stats: PartnerStats | undefined }) {
  const lang = useLang();
  return <bdi>{stats ? formatByCurrency(lang, stats.revenue) : '—'}</bdi>;
}

/** A partner's earnings: per currency, each state that holds an amount ("Pending $5.00"); a dash when none. */
export function Earnings({ stats }: { stats: PartnerStats | undefined }) {
  const s = useStrings(strings);
  const lang = useLang();
  const lines = Object.entries(stats?.earnings ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap(([code, by]) => STATES.filter((st) => by[st] !== 0).map((st) => ({ code, st, minor: by[st] })));
  if (lines.length === 0) return <>—</>;
  return (
    <ul class="program-earnings">
      {lines.map(({ code, st, minor }) => (
        <li key={`${code}-${st}`} data-currency={code} data-state={st}>
          <span class="hint">{s.earningStates[st]}</span> <bdi>{formatMoney(lang, minor, code)}</bdi>
        </li>
      ))}
    </ul>
  );
}

/** A partner's earnings in one currency, every state added (pending, held, payable and paid: what they earned). */
export function earnedIn(stats: PartnerStats | undefined, currency: string): number {
  const by = stats?.earnings?.[currency];
  return by ? by.pending + by.held + by.payable + by.paid : 0;
}
