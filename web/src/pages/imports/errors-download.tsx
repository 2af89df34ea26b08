import { useContext, useState } from 'preact/hooks';
import { errorText } from '../../api/client.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import { download } from '../../ui/download.js';
import { importErrors } from './calls.js';
import { strings } from './strings.js';
import type { ImportJob } from './types.js';

/** Downloads an import's rejected rows (GET /api/imports/{id}/errors) as a CSV file; a failure is said beside it. */
export function ErrorsDownload({ job, label, text, small = false }: { job: ImportJob; label?: string; text: string; small?: boolean }) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>();
  const save = async () => {
    setBusy(true);
    setFailure(undefined);
    try {
      // A byte-order mark, so spreadsheets read the file as UTF-8 (Arabic cells).
      const csv = await importErrors(job.id);
      download(csv.startsWith('\uFEFF') ? csv : '\uFEFF' + csv, 'text/csv;charset=utf-8', `import-${job.createdAt.slice(0, 10)}-rejected-rows.csv`);
    } catch (err) {
      setFailure(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="imp-download">
      <button type="button" class={small ? 'imp-small' : undefined} disabled={busy} onClick={save} aria-label={label}>
        {text}
      </button>
      {failure !== undefined && (
        <span role="alert" class="error">
          {s.downloadFailed}
          {errorText(failure, lang)}
        </span>
      )}
    </span>
  );
}
