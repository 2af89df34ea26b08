import type { ComponentChildren } from 'preact';
import { useContext, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import { EventsList, PAGE } from './events-list.js';
import { Pages } from './pages.js';
import { hrefOf, type ConversionsQuery } from './query.js';
import { strings } from './strings.js';
import { usePagedList } from '../../ui/paged-list.js';
import { Empty, Loading, LoadFailure } from '../../ui/states.js';
import { Table } from '../../ui/table.js';

type Customer = components['schemas']['Customer'];
type State<T> = { kind: 'loading' } | { kind: 'error'; error: unknown } | { kind: 'ready'; value: T };

interface Props {
  query: ConversionsQuery;
  go: (q: ConversionsQuery) => void;
}

/** Customers a page at a time, newest first; a chosen one shows their details and their events. */
export function CustomersView({ query, go }: Props) {
  return query.customer ? <CustomerDetail id={query.customer} query={query} go={go} /> : <CustomerList query={query} go={go} />;
}

/** A same-page link that keeps the browser's own ways (new tab…) and otherwise changes the view in place. */
function ViewLink({ to, go, children }: { to: ConversionsQuery; go: Props['go']; children: ComponentChildren }) {
  return (
    <a
      href={hrefOf(to)}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        go(to);
      }}
    >
      {children}
    </a>
  );
}

function CustomerList({ query, go }: Props) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const page = query.cpage;
  const { list, reload } = usePagedList<Customer>(({ take, skip }) => api.GET('/api/customers', { params: { query: { take, skip, sort: 'desc' } } }), {
    page: page - 1,
    size: PAGE,
  });
  const dates = useMemo(() => new Intl.DateTimeFormat(lang, { dateStyle: 'medium' }), [lang]);

  if (list.kind === 'loading') return <Loading />;
  if (list.kind === 'error') return <LoadFailure error={list.error} retry={reload} class="load-failure" />;
  const pages = <Pages label={s.pagination(s.customers)} page={page} more={list.more} onPage={(n) => go({ ...query, cpage: n })} />;
  if (list.rows.length === 0)
    return (
      <>
        <Empty>{s.emptyCustomers}</Empty>
        {pages}
      </>
    );
  return (
    <>
      <Table class="conv-table" region={{ class: 'conv-scroll', label: s.tableLabel(s.customers) }} columns={[s.name, s.email, s.externalId, s.since]}>
        {list.rows.map((c) => (
          <tr key={c.id}>
            <td>
              <ViewLink to={{ ...query, customer: c.id, cpage: 1 }} go={go}>
                <bdi>{c.name ?? c.externalId}</bdi>
              </ViewLink>
            </td>
            <td>
              <bdi>{c.email ?? ''}</bdi>
            </td>
            <td>
              <bdi>{c.externalId}</bdi>
            </td>
            <td>
              <time dateTime={c.createdAt}>{dates.format(new Date(c.createdAt))}</time>
            </td>
          </tr>
        ))}
      </Table>
      {pages}
    </>
  );
}

function CustomerDetail({ id, query, go }: Props & { id: string }) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const [state, setState] = useState<State<Customer | undefined>>({ kind: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);
  const dates = useMemo(() => new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }), [lang]);

  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    api.GET('/api/customers', { params: { query: { id } } }).then(
      ({ data, error }) => {
        if (!live) return;
        if (!data) setState({ kind: 'error', error });
        else setState({ kind: 'ready', value: data[0] });
      },
      (err: unknown) => live && setState({ kind: 'error', error: err }),
    );
    return () => {
      live = false;
    };
  }, [id, attempt]);
  // The customer was chosen: their name is where the reading continues.
  useEffect(() => {
    if (state.kind === 'ready' && state.value) heading.current?.focus();
  }, [state.kind]);

  const back = (
    <p class="conv-back">
      <ViewLink to={{ ...query, customer: undefined, cpage: 1 }} go={go}>
        {s.backToCustomers}
      </ViewLink>
    </p>
  );
  if (state.kind === 'loading') return <Loading />;
  if (state.kind === 'error') return <LoadFailure error={state.error} retry={() => setAttempt((n) => n + 1)} class="load-failure" />;
  const c = state.value;
  if (!c)
    return (
      <>
        {back}
        <Empty>{s.notFoundCustomer}</Empty>
      </>
    );
  const name = c.name ?? c.externalId;
  return (
    <div class="stack">
      {back}
      <h2 ref={heading} tabIndex={-1}>
        <bdi>{name}</bdi>
      </h2>
      <dl class="conv-details">
        <div>
          <dt>{s.externalId}</dt>
          <dd>
            <bdi>{c.externalId}</bdi>
          </dd>
        </div>
        <div>
          <dt>{s.name}</dt>
          <dd>{c.name ? <bdi>{c.name}</bdi> : <span class="muted">{s.noName}</span>}</dd>
        </div>
        {c.email && (
          <div>
            <dt>{s.email}</dt>
            <dd>
              <bdi>{c.email}</bdi>
            </dd>
          </div>
        )}
        <div>
          <dt>{s.since}</dt>
          <dd>
            <time dateTime={c.createdAt}>{dates.format(new Date(c.createdAt))}</time>
          </dd>
        </div>
      </dl>
      <h3>{s.events}</h3>
      <EventsList
        filter={{ customerId: c.id }}
        page={query.cpage}
        onPage={(n) => go({ ...query, cpage: n })}
        title={s.customerEvents(name)}
        empty={s.emptyCustomerEvents}
      />
    </div>
  );
}
