/**
 * Partner program → Applications (operations.md §18 "Applications"): the applicants still
 * pending (GET /api/partner-applications), each with what they wrote — shown as text only, never
 * as a link or markup — and Approve / Reject (PUT /api/partners with the status: the applicant is
 * mailed an invitation or a short notice; rejecting is asked first, as it cannot be undone). The
 * public page's address, and whether applications are open, head the list.
 */
import { api } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../session.js';
import { useAction } from '../../ui/action.js';
import { useConfirm } from '../../ui/confirm.js';
import { useDate } from '../../ui/date.js';
import { Empty, ErrorLine, LoadFailure, Loading, useLoad } from '../../ui/states.js';
import { NoProgram } from './no-program.js';
import { strings, type ProgramStrings } from './strings.js';
import { isNoProgram, mayChangePartners, type Program } from './types.js';
import { useState } from 'preact/hooks';
import '../settings/settings.css';
import './program.css';

type Application = components['schemas']['PartnerApplication'];

/** The API's largest page: past 500 pending, the program takes no more applications anyway. */
const READ = 500;

export function ApplicationsPage(props: PageProps) {
  const s = useStrings(strings);
  const [program, reloadProgram] = useLoad(() => api.GET('/api/program'));
  const [applications, reload] = useLoad(() => api.GET('/api/partner-applications', { params: { query: { take: READ } } }));
  const [done, setDone] = useState<string>();
  if (program.kind === 'error' && isNoProgram(program.error)) return <NoProgram s={s} />;
  if (program.kind === 'error') return <LoadFailure error={program.error} retry={reloadProgram} />;
  if (applications.kind === 'error') return <LoadFailure error={applications.error} retry={reload} />;
  if (program.kind === 'loading' || applications.kind === 'loading') return <Loading />;
  const writable = mayChangePartners(props);
  return (
    <div class="program program-wide stack">
      <p class="program-intro">{s.applicationsIntro}</p>
      <ApplyPageLine s={s} program={program.data} />
      {!writable && <p class="hint">{s.applicationsReadOnly}</p>}
      <p role="status" class="status program-status">
        {done}
      </p>
      <ApplicationList
        s={s}
        rows={applications.data}
        writable={writable}
        onDecided={(message) => {
          setDone(message);
          reload();
        }}
      />
    </div>
  );
}

/** Where applicants apply, or that applications are closed (opened in the program's settings). */
function ApplyPageLine({ s, program }: { s: ProgramStrings; program: Program }) {
  if (!program.applications.open) return <p class="hint">{s.applicationsClosed}</p>;
  const url = `${location.origin}/apply/${program.slug}`;
  return (
    <p class="hint">
      {s.applyPageAt}{' '}
      <a href={url} target="_blank" rel="noopener">
        <bdi dir="ltr">{url}</bdi>
      </a>
      {program.applications.autoApprove && <> · {s.autoApproveOn}</>}
    </p>
  );
}

function ApplicationList({
  s,
  rows,
  writable,
  onDecided,
}: {
  s: ProgramStrings;
  rows: Application[];
  writable: boolean;
  onDecided: (message: string) => void;
}) {
  const { busy, error, run } = useAction();
  const { confirm, dialog } = useConfirm();
  const date = useDate();
  const decide = async (a: Application, status: 'approved' | 'rejected') => {
    if (
      status === 'rejected' &&
      !(await confirm({ title: s.rejectApplicationQuestion(a.name), body: s.rejectApplicationBody, confirm: s.reject, danger: true }))
    )
      return;
    // The name isolated: in either script, it does not reorder the sentence around it.
    const name = `\u2068${a.name}\u2069`;
    if (await run(() => api.PUT('/api/partners', { body: [{ id: a.partnerId, status }] })))
      onDecided(status === 'approved' ? s.applicationApproved(name) : s.applicationRejected(name));
  };
  if (rows.length === 0) return <Empty>{s.noApplications}</Empty>;
  return (
    <>
      <ErrorLine error={error} />
      <ul class="program-applications" aria-label={s.applicationsLabel}>
        {rows.map((a) => (
          <li key={a.partnerId} class="card-inline program-application" data-partner={a.partnerId}>
            <h2 class="program-application-name">
              <bdi>{a.name}</bdi>
            </h2>
            <dl class="program-application-facts">
              <dt>{s.applicantEmail}</dt>
              <dd>
                <bdi class="program-code-text" dir="ltr">
                  {a.email ?? '—'}
                </bdi>
              </dd>
              <dt>{s.applicantWebsite}</dt>
              <dd>
                {/* As typed: text, never a link (anyone may apply, with any address). */}
                <bdi class="program-code-text" dir="ltr">
                  {a.website ?? '—'}
                </bdi>
              </dd>
              <dt>{s.applicantPromotion}</dt>
              <dd class="program-application-promotion">
                <bdi>{a.promotion ?? '—'}</bdi>
              </dd>
              <dt>{s.appliedOn}</dt>
              <dd>{date(a.createdAt)}</dd>
            </dl>
            {writable && (
              <div class="actions">
                <button type="button" disabled={busy} aria-label={s.approveFor(a.name)} onClick={() => decide(a, 'approved')}>
                  {s.approve}
                </button>
                <button type="button" class="danger" disabled={busy} aria-label={s.rejectPartnerFor(a.name)} onClick={() => decide(a, 'rejected')}>
                  {s.reject}
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
      {dialog}
    </>
  );
}
