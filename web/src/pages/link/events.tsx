import { useState } from 'preact/hooks';
import { api, jsonList } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import type { Formats } from '../analytics/format.js';
import type { Strings } from './strings.js';
import { usePagedList } from '../../ui/paged-list.js';
import { Empty, Loading, LoadFailure } from '../../ui/states.js';
import { Table } from '../../ui/table.js';

type Event = components['schemas']['Event'];

const PAGE = 25;

/** The link's leads and sales, newest first, a page more at a time (GET /api/events?linkId=…). */
export function LinkEvents({ linkId, tz, s, f }: { linkId: string; tz: string; s: Strings; f: Formats }) {
  const [pages, setPages] = useState(1);
  // "More" asks again for all the pages shown so far and one more; the rows shown stay meanwhile.
  const { list, reload } = usePagedList<Event>(
    ({ take, skip }) => jsonList(api.GET('/api/events', { params: { query: { linkId, sort: 'desc', take, skip } } })),
    {
      page: 0,
      size: PAGE * pages,
      deps: [linkId],
      keep: pages > 1,
    },
  );

  return (
    <section class="stack" aria-labelledby="link-events">
      <h2 id="link-events">{s.events}</h2>
      {list.kind === 'loading' && <Loading />}
      {list.kind === 'error' && <LoadFailure lead={s.eventsFailed} error={list.error} retry={reload} />}
      {list.kind === 'ready' && list.rows.length === 0 && <Empty>{s.noEvents}</Empty>}
      {list.kind === 'ready' && list.rows.length > 0 && (
        <>
          <Table class="lk-events lt-collapse" region={{ class: 'lt-scroll', label: s.eventsLabel }} columns={[s.type, s.event, s.time, s.customer, s.amount]}>
            {list.rows.map((e) => (
              <tr key={e.id}>
                <td>
                  <span class={`lk-type lk-${e.type}`}>{e.type === 'lead' ? s.lead : s.sale}</span>
                </td>
                <td data-label={s.event}>
                  <bdi>{e.eventName}</bdi>
                </td>
                <td data-label={s.time}>
                  <time dateTime={String(e.createdAt)}>{f.dateTime(e.createdAt, tz)}</time>
                </td>
                <td data-label={s.customer}>
                  {e.customerName ? <bdi class="title">{e.customerName}</bdi> : null}
                  <bdi class="muted">{e.customerExternalId}</bdi>
                </td>
                <td data-label={s.amount} class="lt-money">
                  {e.amount === null ? '–' : f.money(e.amount, e.currency ?? 'usd')}
                </td>
              </tr>
            ))}
          </Table>
          {list.more && (
            <button type="button" class="lk-more" onClick={() => setPages((n) => n + 1)}>
              {s.more}
            </button>
          )}
        </>
      )}
    </section>
  );
}
