import { useState } from 'preact/hooks';
import { useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../session.js';
import { mayOpen } from '../../access.js';
import { ImportHistory } from './history.js';
import { ImportForm } from './import-form.js';
import { JobPanel } from './job-panel.js';
import { strings } from './strings.js';
import type { ImportJob } from './types.js';
import '../settings/settings.css';
import './imports.css';

/** Links → Import: a file previewed and imported on the server (operations.md §13), then its result; the past imports below. */
export function ImportPage({ workspace }: PageProps) {
  const s = useStrings(strings);
  const [job, setJob] = useState<ImportJob>();
  // Goes up when an import ends here: the history is read again.
  const [version, setVersion] = useState(0);
  // A new form (its file input empty) for each import.
  const [round, setRound] = useState(0);
  return (
    <div class="stack imp-page">
      <p>{s.intro}</p>
      {job ? (
        <JobPanel
          key={job.id}
          started={job}
          showDomains={mayOpen('/settings/domains', workspace)}
          onEnded={() => setVersion((n) => n + 1)}
          onAnother={() => {
            setJob(undefined);
            setRound((n) => n + 1);
          }}
        />
      ) : (
        <ImportForm key={round} onStarted={setJob} />
      )}
      <ImportHistory version={version} onRunning={(running) => setJob((current) => current ?? running)} />
    </div>
  );
}
