import { useContext, useEffect, useMemo } from 'preact/hooks';
import { api, jsonList } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import { onLinkClick } from '../../router.js';
import { Pages } from './pages.js';
import { strings } from './strings.js';
import { errorField } from '../../ui/api-error.js';
import { formatMoney } from '../../ui/money.js';
import { usePagedList } from '../../ui/paged-list.js';
import { Table } from '../../ui/table.js';
import { Empty, Loading, LoadFailure } from '../../ui/states.js';

type Event = components['schemas']['Event'];
type Filter = { type?: 'lead' | 'sale'; customerId?: string; startDate?: string; endDate?: string };

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
  const { list, reload } = usePagedList<Event>(
    ({ take, skip }) => jsonList(api.GET('/api/events', { params: { query: { ...filter, take, skip, sort: 'desc' } } })),
    {
      page: page - 1,
      size: PAGE,
      deps: [JSON.stringify(filter)],
    },
  );
  // An error that names a date parameter is shown at that field, not here.
  const field = list.kind === 'error' ? errorField(list.error) : undefined;
  const atField = Boolean(onDateError && (field === 'startDate' || field === 'endDate'));
  useEffect(() => {
    if (list.kind === 'error' && atField) onDateError!(field as 'startDate' | 'endDate', list.error);
  }, [list]);
  const time = useMemo(() => new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }), [lang]);

  if (list.kind === 'loading') return <Loading />;
  if (list.kind === 'error') return atField ? null : <LoadFailure error={list.error} retry={reload} class="load-failure" />;
  const pages = <Pages label={s.pagination(title)} page={page} more={list.more} onPage={onPage} />;
  // (A later page can be empty too: an old address, or events gone meanwhile; Previous leads back.)
  if (list.rows.length === 0)
    return (
      <>
        <Empty>{empty}</Empty>
        {pages}
      </>
    );
  const columns = [s.time, s.type, s.source, s.eventName, ...(customerHref ? [s.customer] : []), s.link, s.amount];
  return (
    <>
      <Table class="conv-table" region={{ class: 'conv-scroll', label: s.tableLabel(title) }} columns={columns}>
        {list.rows.map((e) => (
          <tr key={e.type + e.id}>
            <td>
              <time dateTime={e.createdAt}>{time.format(new Date(e.createdAt))}</time>
            </td>
            <td>
              <span class={`conv-type conv-${e.type}`}>{e.type === 'sale' ? s.sale : s.lead}</span>
            </td>
            <td>
              <span class={`conv-source conv-source-${e.source}`} data-source={e.source}>
                {s.sources[e.source]}
              </span>
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
      </Table>
      {pages}
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
