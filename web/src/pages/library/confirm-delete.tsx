import { useContext, useRef, useState } from 'preact/hooks';
import { errorText } from '../../api/client.js';
import { LangContext } from '../../i18n/index.js';
import { Dialog } from '../../ui/dialog.js';
import type { LibraryStrings } from './strings.js';

interface Props {
  s: LibraryStrings;
  title: string;
  body: string;
  remove: () => Promise<{ data?: unknown; error?: unknown }>;
  onDone: () => void;
  onCancel: () => void;
}

/**
 * A modal confirmation (focus stays inside, Escape cancels). The focus starts on Cancel, so
 * Enter alone never deletes. An API error is shown inside.
 */
export function ConfirmDelete({ s, title, body, remove, onDone, onCancel }: Props) {
  const { lang } = useContext(LangContext);
  const cancel = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  // Kept as the API answered, so a change of language shows its other message.
  const [error, setError] = useState<unknown>();

  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const { error: failed } = await remove();
      if (failed) setError(failed);
      else onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog class="lib-dialog" title={title} description={body} busy={busy} initialFocus={cancel} onClose={onCancel}>
      {error !== undefined && (
        <p class="error" role="alert">
          {errorText(error, lang)}
        </p>
      )}
      <div class="lib-buttons">
        <button type="button" class="lib-danger-solid" disabled={busy} onClick={confirm}>
          {busy ? s.deleting : s.delete}
        </button>
        <button ref={cancel} type="button" disabled={busy} onClick={onCancel}>
          {s.cancel}
        </button>
      </div>
    </Dialog>
  );
}
