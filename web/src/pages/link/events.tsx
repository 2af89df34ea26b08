import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import type { Formats } from '../analytics/format.js';
import type { Strings } from './strings.js';
import { Empty, Loading, LoadFailure } from '../../ui/states.js';

type Event = components['schemas']['Event'];
type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; events: Event[]; more: boolean };

const PAGE = 25;

/** The link's leads and sales, newest first, a page at a time (GET /api/events?linkId=…). */
export function LinkEvents({ linkId, tz, s, f }: { linkId: string; tz: string; s: Strings; f: Formats }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [pages, setPages] = useState(1);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    if (pages === 1) setState({ kind: 'loading' });
    api.GET('/api/events', { params: { query: { linkId, sort: 'desc', take: PAGE * pages + 1 } } }).then(
      ({ data, error }) => {
        if (!live) return;
        if (error) return setState({ kind: 'error', message: errorText(error, f.lang) });
        const events = data.slice(0, PAGE * pages);
        setState({ kind: 'ready', events, more: data.length > events.length });
      },
      (e: unknown) => live && setState({ kind: 'error', message: errorText(e, f.lang) }),
    );
    return () => {
      live = false;
    };
  }, [linkId, pages, attempt]);

  return (
    <section class="stack" aria-labelledby="link-events">
      <h2 id="link-events">{s.events}</h2>
      {state.kind === 'loading' && <Loading />}
      {state.kind === 'error' && <LoadFailure lead={s.eventsFailed} message={state.message} retry={() => setAttempt((n) => n + 1)} />}
      {state.kind === 'ready' && state.events.length === 0 && <Empty>{s.noEvents}</Empty>}
      {state.kind === 'ready' && state.events.length > 0 && (
        <>
          <div class="lt-scroll" role="region" tabIndex={0} aria-label={s.eventsLabel}>
            <table class="table lk-events">
              <thead>
                <tr>
                  <th scope="col">{s.type}</th>
                  <th scope="col">{s.event}</th>
                  <th scope="col">{s.time}</th>
                  <th scope="col">{s.customer}</th>
                  <th scope="col">{s.amount}</th>
                </tr>
              </thead>
              <tbody>
                {state.events.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <span class={`lk-type lk-${e.type}`}>{e.type === 'lead' ? s.lead : s.sale}</span>
                    </td>
                    <td>
                      <bdi>{e.eventName}</bdi>
                    </td>
                    <td>
                      <time dateTime={String(e.createdAt)}>{f.dateTime(e.createdAt, tz)}</time>
                    </td>
                    <td>
                      {e.customerName ? <bdi class="title">{e.customerName}</bdi> : null}
                      <bdi class="muted">{e.customerExternalId}</bdi>
                    </td>
                    <td>{e.amount === null ? '–' : f.money(e.amount, e.currency ?? 'usd')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {state.more && (
            <button type="button" class="lk-more" onClick={() => setPages((n) => n + 1)}>
              {s.more}
            </button>
          )}
        </>
      )}
    </section>
  );
}
