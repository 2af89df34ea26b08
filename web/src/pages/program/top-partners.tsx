/**
 * The Program page's earnings by partner (operations.md §18 "Program"): the partners who earned
 * most in the last 30 days, from the same read as the Partners page (GET
 * /api/partners?withStats=true). Ranked by their earnings in the program's currency, then by
 * revenue in it (currencies are never added, so another currency's figures are shown, not ranked).
 * Left out when the read is refused (analyticsRead missing): the page's settings stand alone.
 */
import { useStrings } from '../../i18n/index.js';
import { onLinkClick } from '../../router.js';
import { Empty, useLoad } from '../../ui/states.js';
import { Table } from '../../ui/table.js';
import { earnedIn, Earnings, partnersWithStats, Revenue } from './partner-figures.js';
import { strings } from './strings.js';
import type { Partner } from './types.js';

const TOP = 5;

export function TopPartners({ currency }: { currency: string }) {
  const s = useStrings(strings);
  const [partners] = useLoad(partnersWithStats);
  if (partners.kind !== 'ready') return null;
  const revenueIn = (p: Partner) => p.stats?.revenue[currency] ?? 0;
  const nonZero = (amounts: Record<string, number>[]) => amounts.some((by) => Object.values(by).some((minor) => minor !== 0));
  const earning = partners.data.filter((p) => nonZero([...Object.values(p.stats?.earnings ?? {}), p.stats?.revenue ?? {}]));
  const top = earning
    .sort((a, b) => earnedIn(b.stats, currency) - earnedIn(a.stats, currency) || revenueIn(b) - revenueIn(a) || a.name.localeCompare(b.name))
    .slice(0, TOP);
  return (
    <section aria-labelledby="program-top-partners" class="stack-tight">
      <h2 id="program-top-partners">{s.topPartnersTitle}</h2>
      <p class="hint">
        {s.topPartnersHelp}{' '}
        <a href="/app/program/partners" onClick={onLinkClick}>
          {s.allPartnersLink}
        </a>
      </p>
      {top.length === 0 ? (
        <Empty>{s.noEarningsYet}</Empty>
      ) : (
        <Table class="program-table program-top" region={{ class: 'program-scroll', label: s.topPartnersTitle }} columns={[s.partner, s.revenue, s.earnings]}>
          {top.map((p) => (
            <tr key={p.id} data-partner={p.id}>
              <td>
                <bdi class="cell-name">{p.name}</bdi>
              </td>
              <td>
                <Revenue stats={p.stats} />
              </td>
              <td>
                <Earnings stats={p.stats} />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
