import { api } from '../../api/client.js';
import { useLang, useStrings } from '../../i18n/index.js';
import { useDate } from '../../ui/date.js';
import { formatMoney } from '../../ui/money.js';
import { Empty, Loaded, useLoad } from '../../ui/states.js';
import { Table } from '../../ui/table.js';
import { programHeader } from './program-header.js';
import { strings } from './strings.js';

/** The partner's commissions, newest first: each customer only as the portal shows them (first name, last initial, masked e-mail). */
export function Commissions({ programId }: { programId: string }) {
  const s = useStrings(strings);
  const lang = useLang();
  const date = useDate();
  const [rows, reload] = useLoad(() => api.GET('/api/partner/commissions', { params: { ...programHeader(programId), query: { take: 100 } } }));
  return (
    <section aria-labelledby="portal-commissions">
      <h2 id="portal-commissions">{s.commissions}</h2>
      <Loaded state={rows} retry={reload}>
        {(list) =>
          list.length === 0 ? (
            <Empty>{s.commissionsNone}</Empty>
          ) : (
            <Table
              class="portal-table lt-collapse"
              region={{ class: 'lt-scroll', labelledBy: 'portal-commissions' }}
              columns={[s.date, s.type, s.customer, s.amount, s.statusHeading]}
            >
              {list.map((c) => (
                <tr key={c.id}>
                  <td>{date(c.createdAt)}</td>
                  <td data-label={s.type}>{s.types[c.type] ?? c.type}</td>
                  <td data-label={s.customer}>
                    {c.customer ? (
                      <>
                        <bdi>{c.customer.name ?? ''}</bdi>{' '}
                        <span class="hint" dir="ltr">
                          {c.customer.email ?? ''}
                        </span>{' '}
                        {c.customer.country ?? ''}
                      </>
                    ) : (
                      (c.description ?? '')
                    )}
                  </td>
                  <td data-label={s.amount}>{formatMoney(lang, c.earnings, c.currency)}</td>
                  <td data-label={s.statusHeading}>{s.statuses[c.status] ?? c.status}</td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loaded>
    </section>
  );
}

/** What each payout paid the partner. */
export function Payouts({ programId }: { programId: string }) {
  const s = useStrings(strings);
  const lang = useLang();
  const date = useDate();
  const [rows, reload] = useLoad(() => api.GET('/api/partner/payouts', { params: { ...programHeader(programId), query: { take: 100 } } }));
  return (
    <section aria-labelledby="portal-payouts">
      <h2 id="portal-payouts">{s.payouts}</h2>
      <Loaded state={rows} retry={reload}>
        {(list) =>
          list.length === 0 ? (
            <Empty>{s.payoutsNone}</Empty>
          ) : (
            <Table
              class="portal-table lt-collapse"
              region={{ class: 'lt-scroll', labelledBy: 'portal-payouts' }}
              columns={[s.date, s.amount, s.method, s.statusHeading]}
            >
              {list.map((p) => (
                <tr key={p.id}>
                  <td>{date(p.completedAt ?? p.createdAt)}</td>
                  <td data-label={s.amount}>{formatMoney(lang, p.amount, p.currency)}</td>
                  <td data-label={s.method}>
                    {p.method ? s.methods[p.method] : ''}{' '}
                    <span dir="ltr" class="hint">
                      {p.destination ?? ''}
                    </span>
                  </td>
                  <td data-label={s.statusHeading}>{s.statuses[p.status] ?? p.status}</td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loaded>
    </section>
  );
}
