import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import { onLinkClick } from '../../router.js';
import { Pages } from './pages.js';
import { strings } from './strings.js';
import { errorField } from '../../ui/api-error.js';
import { formatMoney } from '../../ui/money.js';
import { Empty, Loading, LoadFailure } from '../../ui/states.js';

type Event = components['schemas']['Event'];
type Filter = { type?: 'lead' | 'sale'; customerId?: string; startDate?: string; endDate?: string };
type State = { kind: 'loading' } | { kind: 'error'; error: unknown; atField?: boolean } | { kind: 'ready'; rows: Event[]; more: boolean };

export const PAGE = 25;

interface Props {
  filter: Filter;
  /** 1-based. */
  page: number;
  onPage: (page: number) => void;
  /** What the list is (names the table and its pages). */
  title: string;
  /** What the empty list says (and what to do next). */
  empty: string;
  /** The customer column links to the customer (left out when the list is one customer's). */
  customerHref?: (customerId: string) => string;
  onCustomer?: (customerId: string) => void;
  /** An error that names a date parameter is shown at that field instead. */
  onDateError?: (field: 'startDate' | 'endDate', error: unknown) => void;
}

/** Leads and sales, newest first, a page at a time (GET /api/events). */
export function EventsList({ filter, page, onPage, title, empty, customerHref, onCustomer, onDateError }: Props) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const key = JSON.stringify(filter);

  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    // One more than a page tells whether a next page exists.
    api.GET('/api/events', { params: { query: { ...filter, take: PAGE + 1, skip: (page - 1) * PAGE, sort: 'desc' } } }).then(
      ({ data, error }) => {
        if (!live) return;
        if (!data) {
          const field = errorField(error);
          const atField = Boolean(onDateError && (field === 'startDate' || field === 'endDate'));
          if (atField) onDateError!(field as 'startDate' | 'endDate', error);
          setState({ kind: 'error', error, atField });
          return;
        }
        const rows = data.slice(0, PAGE);
        setState({ kind: 'ready', rows, more: data.length > PAGE });
      },
      (err: unknown) => live && setState({ kind: 'error', error: err }),
    );
    return () => {
      live = false;
    };
  }, [key, page, attempt]);

  const time = useMemo(() => new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }), [lang]);

  if (state.kind === 'loading') return <Loading />;
  // (A date's error is shown at its field.)
  if (state.kind === 'error' && state.atField) return null;
  if (state.kind === 'error') return <LoadFailure error={state.error} retry={() => setAttempt((n) => n + 1)} class="load-failure" />;
  // (A later page can be empty too: an old address, or events gone meanwhile; Previous leads back.)
  if (state.rows.length === 0)
    return (
      <>
        <Empty>{empty}</Empty>
        <Pages label={s.pagination(title)} page={page} more={false} onPage={onPage} />
      </>
    );
  return (
    <>
      <div class="conv-scroll" role="region" tabIndex={0} aria-label={s.tableLabel(title)}>
        <table class="table conv-table">
          <thead>
            <tr>
              <th scope="col">{s.time}</th>
              <th scope="col">{s.type}</th>
              <th scope="col">{s.eventName}</th>
              {customerHref && <th scope="col">{s.customer}</th>}
              <th scope="col">{s.link}</th>
              <th scope="col">{s.amount}</th>
            </tr>
          </thead>
          <tbody>
            {state.rows.map((e) => (
              <tr key={e.type + e.id}>
                <td>
                  <time dateTime={e.createdAt}>{time.format(new Date(e.createdAt))}</time>
                </td>
                <td>
                  <span class={`conv-type conv-${e.type}`}>{e.type === 'sale' ? s.sale : s.lead}</span>
                </td>
                <td>
                  <bdi>{e.eventName}</bdi>
                </td>
                {customerHref && (
                  <td>
                    <a
                      href={customerHref(e.customerId)}
                      onClick={(ev) => {
                        if (!onCustomer || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
                        ev.preventDefault();
                        onCustomer(e.customerId);
                      }}
                    >
                      <bdi>{e.customerName ?? e.customerExternalId}</bdi>
                    </a>
                    {e.customerName !== null && (
                      <>
                        {' '}
                        <bdi class="muted">{e.customerExternalId}</bdi>
                      </>
                    )}
                  </td>
                )}
                <td>
                  <LinkCell id={e.linkId} url={e.shortUrl} title={e.linkTitle} />
                </td>
                <td>{e.amount !== null && e.currency ? formatMoney(lang, e.amount, e.currency) : s.noAmount}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pages label={s.pagination(title)} page={page} more={state.more} onPage={onPage} />
    </>
  );
}

/** The link's short URL (kept when the link was deleted), to its page; the link's id when the event has none. */
function LinkCell({ id, url, title }: { id: string; url: string | null; title: string | null }) {
  return (
    <a href={`/app/links/${id}`} onClick={onLinkClick} title={title ?? undefined}>
      <bdi dir="ltr">{url ?? id}</bdi>
    </a>
  );
}
