import { useContext, useRef, useState } from 'preact/hooks';
import { errorText } from '../../api/client.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import { CustomersView } from './customers.js';
import { EventsList } from './events-list.js';
import { endOfDay, startOfDay } from './format.js';
import { hrefOf, useConversionsQuery, type ConversionsQuery } from './query.js';
import { strings } from './strings.js';
import './conversions.css';

const VIEWS = ['events', 'customers'] as const;

/**
 * /conversions: the workspace's leads and sales (type and date filters, server paging) and
 * its customers (choosing one shows their events). Everything chosen is in the address.
 */
export function ConversionsPage() {
  const s = useStrings(strings);
  const [query, go] = useConversionsQuery();
  const tabs = useRef<HTMLDivElement>(null);

  const choose = (view: ConversionsQuery['view'], focus: boolean) => {
    if (view !== query.view) go({ ...query, view });
    if (focus) tabs.current?.querySelector<HTMLElement>(`#conv-tab-${view}`)?.focus();
  };
  // Tabs: one stop for Tab, the arrows (either way, two tabs), Home and End move and show.
  const onKeyDown = (e: KeyboardEvent) => {
    const i = VIEWS.indexOf(query.view);
    const to = { ArrowLeft: 1 - i, ArrowRight: 1 - i, Home: 0, End: 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    choose(VIEWS[to]!, true);
  };

  return (
    <section class="stack conv">
      <div ref={tabs} role="tablist" aria-label={s.tabs} class="conv-tabs" onKeyDown={onKeyDown}>
        {VIEWS.map((view) => (
          <a
            key={view}
            id={`conv-tab-${view}`}
            role="tab"
            href={hrefOf({ ...query, view })}
            aria-selected={query.view === view}
            aria-controls={`conv-panel-${view}`}
            tabIndex={query.view === view ? 0 : -1}
            onClick={(e) => {
              if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
              e.preventDefault();
              choose(view, false);
            }}
          >
            {view === 'events' ? s.events : s.customers}
          </a>
        ))}
      </div>
      {VIEWS.map((view) => (
        <div key={view} id={`conv-panel-${view}`} role="tabpanel" aria-labelledby={`conv-tab-${view}`} hidden={query.view !== view} class="stack">
          {query.view === view && (view === 'events' ? <EventsView query={query} go={go} /> : <CustomersView query={query} go={go} />)}
        </div>
      ))}
    </section>
  );
}

type DateError = { field: 'startDate' | 'endDate'; error: unknown };

function EventsView({ query, go }: { query: ConversionsQuery; go: (q: ConversionsQuery) => void }) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const [dateError, setDateError] = useState<DateError>();
  const filtered = Boolean(query.type || query.from || query.to);
  const filter = {
    type: query.type,
    startDate: query.from ? startOfDay(query.from) : undefined,
    endDate: query.to ? endOfDay(query.to) : undefined,
  };

  const apply = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const type = String(form.get('type') ?? '');
    setDateError(undefined);
    go({
      ...query,
      type: type === 'lead' || type === 'sale' ? type : undefined,
      from: String(form.get('from') ?? '') || undefined,
      to: String(form.get('to') ?? '') || undefined,
      page: 1,
    });
  };
  const showDateError = (field: DateError['field'], error: unknown) => {
    setDateError({ field, error });
    setTimeout(() => document.getElementById(field === 'startDate' ? 'conv-from' : 'conv-to')?.focus(), 0);
  };
  const dateField = (id: string, name: 'from' | 'to', label: string, field: DateError['field']) => {
    const error = dateError?.field === field ? errorText(dateError.error, lang) : undefined;
    return (
      <div class="field">
        <label for={id}>{label}</label>
        <input
          id={id}
          name={name}
          type="date"
          defaultValue={query[name] ?? ''}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
        />
        {error && (
          <p id={`${id}-error`} class="error" role="alert">
            {error}
          </p>
        )}
      </div>
    );
  };

  return (
    <>
      {/* Keyed by the applied filters, so Back and Forward show theirs in the fields. */}
      <form key={hrefOf({ ...query, page: 1 })} class="conv-filters" aria-label={s.filters} onSubmit={apply}>
        <div class="field">
          <label for="conv-type">{s.type}</label>
          <select id="conv-type" name="type">
            <option value="">{s.all}</option>
            <option value="lead" selected={query.type === 'lead'}>
              {s.leadsOnly}
            </option>
            <option value="sale" selected={query.type === 'sale'}>
              {s.salesOnly}
            </option>
          </select>
        </div>
        {dateField('conv-from', 'from', s.from, 'startDate')}
        {dateField('conv-to', 'to', s.to, 'endDate')}
        <div class="conv-filter-buttons">
          <button type="submit">{s.apply}</button>
          {filtered && (
            <button type="button" onClick={() => (setDateError(undefined), go({ ...query, type: undefined, from: undefined, to: undefined, page: 1 }))}>
              {s.clear}
            </button>
          )}
        </div>
      </form>
      <EventsList
        filter={filter}
        page={query.page}
        onPage={(page) => go({ ...query, page })}
        title={s.events}
        empty={filtered ? s.emptyFiltered : s.emptyEvents}
        customerHref={(customer) => hrefOf({ ...query, view: 'customers', customer, cpage: 1 })}
        onCustomer={(customer) => go({ ...query, view: 'customers', customer, cpage: 1 })}
        onDateError={showDateError}
      />
    </>
  );
}
