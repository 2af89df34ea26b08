import { useEffect, useId, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { usePagedList } from '../../ui/paged-list.js';
import { Paginator } from '../../ui/paginator.js';
import { Empty, ErrorLine, LoadFailure, Loading, useLoad } from '../../ui/states.js';
import { Table } from '../../ui/table.js';
import { useAction } from '../../ui/action.js';
import { useDate } from '../../ui/date.js';
import { BacklogLine } from './backlog.js';
import { strings } from './strings.js';
import type { Delivery, DeliveryStatus } from './types.js';

const PAGE = 20;
const STATUSES: DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

/**
 * The endpoint's deliveries, newest first, a page at a time, all or those in one state; each with
 * its latest attempt and a Retry. Above them, how many wait to be sent and how far behind.
 */
export function DeliveryLog({ endpointId, canRetry, version }: { endpointId: string; canRetry: boolean; version: number }) {
  const w = useStrings(strings);
  const filterId = useId();
  const [page, setPage] = useState(0);
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  // A new delivery was asked for: the first page shows it.
  useEffect(() => setPage(0), [version]);
  const { list, loading, reload } = usePagedList<Delivery>(
    ({ take, skip, signal }) =>
      api.GET('/api/webhooks/{id}/deliveries', { params: { path: { id: endpointId }, query: { take, skip, ...(status ? { status } : {}) } }, signal }),
    { page, size: PAGE, deps: [version, status], keep: true, onPastEnd: () => setPage((p) => Math.max(0, p - 1)) },
  );
  const [backlog, reloadBacklog] = useLoad(() => api.GET('/api/webhooks/backlog'));
  useEffect(() => {
    if (version > 0) reloadBacklog();
  }, [version]);
  const refresh = () => {
    reload();
    reloadBacklog();
  };
  const { error, run } = useAction();
  const [done, setDone] = useState<string>();
  // A retry said before the endpoint was disabled no longer holds.
  useEffect(() => setDone(undefined), [canRetry]);
  const retry = async (d: Delivery) => {
    setDone(undefined);
    if (
      (await run(() => api.POST('/api/webhooks/{id}/deliveries/{deliveryId}/retry', { params: { path: { id: endpointId, deliveryId: d.id } } }))) !== undefined
    ) {
      setDone(w.retried);
      reload();
    }
  };
  return (
    <section aria-labelledby="wh-log" class="stack-tight">
      <div class="wh-log-head">
        <h2 id="wh-log">{w.logTitle}</h2>
        <div class="wh-log-tools">
          <label class="wh-filter" for={filterId}>
            {w.show}
          </label>
          <select
            id={filterId}
            name="status"
            value={status}
            onChange={(e) => {
              setStatus(e.currentTarget.value as DeliveryStatus | '');
              setPage(0);
            }}
          >
            <option value="">{w.allDeliveries}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {w.onlyStatus[s]}
              </option>
            ))}
          </select>
          <button type="button" onClick={refresh} disabled={loading}>
            {w.refresh}
          </button>
        </div>
      </div>
      {backlog.kind === 'ready' && <BacklogLine backlog={backlog.data.find((b) => b.webhookId === endpointId)} />}
      <p role="status" class="status">
        {done}
      </p>
      <ErrorLine error={error} />
      {list.kind === 'loading' && <Loading />}
      {list.kind === 'error' && <LoadFailure error={list.error} retry={reload} />}
      {list.kind === 'ready' &&
        (list.rows.length === 0 && page === 0 ? (
          <Empty>{status ? w.noDeliveriesIn : w.noDeliveries}</Empty>
        ) : (
          <>
            <Table
              class="wh-log"
              region={{ class: 'wh-scroll', label: w.logLabel, busy: loading }}
              columns={[w.event, w.result, w.attempt, w.duration, w.when, w.next, canRetry ? <span class="visually-hidden">{w.retry}</span> : null].filter(
                (c) => c !== null,
              )}
            >
              {list.rows.map((d) => (
                <DeliveryRow key={d.id} delivery={d} canRetry={canRetry} onRetry={() => retry(d)} />
              ))}
            </Table>
            <Paginator
              class="wh-pages"
              label={w.logPages}
              page={page + 1}
              hasPrevious={page > 0}
              hasNext={list.more}
              onPrevious={() => setPage(page - 1)}
              onNext={() => setPage(page + 1)}
            />
          </>
        ))}
    </section>
  );
}

function DeliveryRow({ delivery: d, canRetry, onRetry }: { delivery: Delivery; canRetry: boolean; onRetry: () => void }) {
  const w = useStrings(strings);
  const date = useDate();
  const outcome = [d.statusCode ?? null, d.error ?? null].filter((x) => x !== null).join(' · ');
  return (
    <tr>
      <td>
        <code>{d.eventType}</code>
        <span class="hint wh-id">
          <code>{d.eventId}</code>
        </span>
      </td>
      <td>
        <span class={`wh-status wh-${d.status}`}>{w.status[d.status] ?? d.status}</span>
        {outcome && <span class="hint wh-outcome">{outcome}</span>}
        {d.response && (
          <details class="wh-answer">
            <summary>{w.answer}</summary>
            <pre>{d.response}</pre>
          </details>
        )}
      </td>
      <td>{d.attempts}</td>
      <td>{d.durationMs === null || d.durationMs === undefined ? w.none : w.ms(d.durationMs)}</td>
      <td>{d.lastAttemptAt ? date(d.lastAttemptAt) : w.none}</td>
      <td>{d.nextAttemptAt ? date(d.nextAttemptAt) : w.none}</td>
      {canRetry && (
        <td>
          <button type="button" onClick={onRetry} aria-label={w.retryFor(d.eventType, d.eventId)}>
            {w.retry}
          </button>
        </td>
      )}
    </tr>
  );
}
