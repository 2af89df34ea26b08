import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from '../../api/client.js';
import { LangContext } from '../../i18n/index.js';
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
 * A modal confirmation (the native <dialog>: focus stays inside, Escape cancels). The
 * focus starts on Cancel, so Enter alone never deletes. An API error is shown inside.
 */
export function ConfirmDelete({ s, title, body, remove, onDone, onCancel }: Props) {
  const { lang } = useContext(LangContext);
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  // Kept as the API answered, so a change of language shows its other message.
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    d.showModal();
    cancel.current?.focus();
    return () => d.open && d.close();
  }, []);

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
    <dialog
      ref={dialog}
      class="lib-dialog"
      aria-labelledby="lib-dialog-title"
      aria-describedby="lib-dialog-body"
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onCancel();
      }}
    >
      <h2 id="lib-dialog-title">{title}</h2>
      <p id="lib-dialog-body">{body}</p>
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
    </dialog>
  );
}
