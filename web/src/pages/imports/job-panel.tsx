import { useContext, useEffect, useMemo, useRef } from 'preact/hooks';
import { errorText } from '../../api/client.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import { onLinkClick } from '../../router.js';
import { ErrorsDownload } from './errors-download.js';
import { strings } from './strings.js';
import type { ImportJob } from './types.js';
import { useImportJob } from './use-import-job.js';

interface Props {
  started: ImportJob;
  /** The job ended (done or failed): the history is read again. */
  onEnded: () => void;
  onAnother: () => void;
  /** The person may open Settings → Domains (an owner), where the hosts of old short URLs are verified. */
  showDomains: boolean;
}

/** A running import's progress bar, then its result: created, updated, unchanged, not imported (with the rows to download). */
export function JobPanel({ started, onEnded, onAnother, showDomains }: Props) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const number = useMemo(() => new Intl.NumberFormat(lang), [lang]);
  const percent = useMemo(() => new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 0 }), [lang]);
  const { job, error } = useImportJob(started);
  // Progress from the first byte: how far into the file the rows written reach (the rows count moves by batches).
  const byBytes = job.bytesTotal > 0;
  const running = job.status === 'running';
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (running) return;
    onEnded();
    heading.current?.focus();
  }, [running]);
  const counts = [
    [s.created, job.created],
    [s.updated, job.updated],
    [s.unchanged, job.unchanged],
    [s.failed, job.failed],
  ] as const;
  return (
    <section class="stack-tight card-inline imp-job" aria-labelledby="imp-job-title">
      <h2 id="imp-job-title" ref={heading} tabIndex={-1}>
        {running ? s.progressTitle : s.resultTitle}
      </h2>
      <div class="field">
        <label for="imp-progress">{s.progress}</label>
        <progress
          id="imp-progress"
          max={byBytes ? job.bytesTotal : Math.max(job.total, 1)}
          value={byBytes ? job.bytesRead : job.done}
          aria-describedby="imp-progress-text"
        />
        <span id="imp-progress-text" class="hint">
          {s.progressText(number.format(job.done), number.format(job.total))}
          {byBytes && running && s.progressBytes(percent.format(job.bytesRead / job.bytesTotal))}
        </span>
      </div>
      {error !== undefined && <p class="error">{errorText(error, lang)}</p>}
      <p role="status">{running ? '' : job.status === 'failed' ? '' : s.finished}</p>
      {job.status === 'failed' && job.error && (
        <p role="alert" class="error">
          {s.jobFailed}
          {lang === 'ar' ? job.error.ar : job.error.en}
        </p>
      )}
      {!running && (
        <>
          <dl class="totals imp-totals">
            {counts.map(([name, n]) => (
              <div class="total" key={name}>
                <dt>{name}</dt>
                <dd>{number.format(n)}</dd>
              </div>
            ))}
          </dl>
          {showDomains && job.created + job.updated + job.unchanged > 0 && (
            <p class="hint">
              {s.aliasesHint}{' '}
              <a href="/app/settings/domains" class="imp-nowrap" onClick={onLinkClick}>
                {s.domainsPage}
              </a>
              .
            </p>
          )}
          <div class="actions">
            {job.failed > 0 && <ErrorsDownload job={job} text={s.downloadErrors} />}
            <a href="/app/links" onClick={onLinkClick}>
              {s.viewLinks}
            </a>
            <button type="button" onClick={onAnother}>
              {s.another}
            </button>
          </div>
        </>
      )}
    </section>
  );
}
