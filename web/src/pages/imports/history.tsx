import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { LangContext, useStrings } from '../../i18n/index.js';
import { usePagedList } from '../../ui/paged-list.js';
import { Paginator } from '../../ui/paginator.js';
import { Empty, Loading, LoadFailure } from '../../ui/states.js';
import { Table } from '../../ui/table.js';
import { listImports } from './calls.js';
import { ErrorsDownload } from './errors-download.js';
import { strings } from './strings.js';
import type { ImportJob, ImportSource } from './types.js';

const PAGE_SIZE = 10;

interface Props {
  /** Goes up when an import ended here: the list is read again. */
  version: number;
  /** The newest import is still running (started elsewhere or before a reload): the page follows it. */
  onRunning: (job: ImportJob) => void;
}

/** The workspace's imports, newest first, with their counts and each one's rejected rows. */
export function ImportHistory({ version, onRunning }: Props) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const number = useMemo(() => new Intl.NumberFormat(lang), [lang]);
  const date = useMemo(() => new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }), [lang]);
  const [page, setPage] = useState(0);
  const { list, loading, reload } = usePagedList<ImportJob>(
    ({ take, skip, signal }) =>
      listImports(take, skip, signal).then(
        (data) => ({ data }),
        (error: unknown) => ({ error }),
      ),
    { page, size: PAGE_SIZE, deps: [version], keep: true, onPastEnd: () => setPage((p) => Math.max(0, p - 1)) },
  );
  useEffect(() => {
    const newest = list.kind === 'ready' && page === 0 ? list.rows[0] : undefined;
    if (newest?.status === 'running') onRunning(newest);
  }, [list]);
  const count = (n: number) => number.format(n);
  return (
    <section class="stack-tight">
      <h2 id="imp-history-title">{s.historyTitle}</h2>
      {list.kind === 'loading' && <Loading text={s.loadingHistory} />}
      {list.kind === 'error' && <LoadFailure lead={s.historyFailed} error={list.error} retry={reload} />}
      {list.kind === 'ready' && list.rows.length === 0 && <Empty>{s.historyEmpty}</Empty>}
      {list.kind === 'ready' && list.rows.length > 0 && (
        <>
          <Table
            class="imp-history"
            region={{ class: 'imp-scroll', labelledBy: 'imp-history-title', busy: loading }}
            columns={[s.started, s.status, s.rows, s.created, s.updated, s.unchanged, s.failed, s.errors]}
          >
            {list.rows.map((job) => {
              const started = date.format(new Date(job.createdAt));
              return (
                <tr key={job.id}>
                  <td>
                    <span class="imp-when">{started}</span>
                    <span class="hint">{s.sources[job.source as ImportSource] ?? job.source}</span>
                  </td>
                  <td>
                    <span class={`badge imp-${job.status}`}>{s.statuses[job.status] ?? job.status}</span>
                  </td>
                  <td>{job.status === 'running' ? `${count(job.done)} / ${count(job.total)}` : count(job.total)}</td>
                  <td>{count(job.created)}</td>
                  <td>{count(job.updated)}</td>
                  <td>{count(job.unchanged)}</td>
                  <td>{count(job.failed)}</td>
                  <td>{job.failed > 0 && job.status !== 'running' && <ErrorsDownload job={job} text="CSV" label={s.downloadErrorsOf(started)} small />}</td>
                </tr>
              );
            })}
          </Table>
          <Paginator
            class="imp-pages"
            label={s.historyPages}
            page={page + 1}
            hasPrevious={page > 0}
            hasNext={list.more}
            onPrevious={() => setPage(page - 1)}
            onNext={() => setPage(page + 1)}
          />
        </>
      )}
    </section>
  );
}
