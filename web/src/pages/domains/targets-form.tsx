import { useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { ErrorLine } from '../../ui/states.js';
import { useAction } from '../../ui/action.js';
import { strings } from './strings.js';
import { urlOrNull, type Domain } from './types.js';
import { UrlField } from './url-field.js';

/** Where a host's root and unknown paths send visitors (PATCH /api/domains/{id}; blank clears). */
export function TargetsForm({ domain: d, onCancel, onSaved }: { domain: Domain; onCancel: () => void; onSaved: () => void }) {
  const w = useStrings(strings);
  const id = useId();
  const [rootUrl, setRootUrl] = useState(d.rootUrl ?? '');
  const [notFoundUrl, setNotFoundUrl] = useState(d.notFoundUrl ?? '');
  const { busy, error, run } = useAction();
  const ref = useRef<HTMLFormElement>(null);
  // The form replaces what it edits: the focus moves to its first field.
  useLayoutEffect(() => ref.current?.querySelector('input')?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const saved = await run(() =>
      api.PATCH('/api/domains/{id}', { params: { path: { id: d.id } }, body: { rootUrl: urlOrNull(rootUrl), notFoundUrl: urlOrNull(notFoundUrl) } }),
    );
    if (saved) onSaved();
  };
  return (
    <form ref={ref} class="stack-tight dom-edit" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{w.editTitle(d.host)}</h3>
      <UrlField name="rootUrl" label={w.rootUrl} help={w.rootUrlHelp} value={rootUrl} onInput={setRootUrl} />
      <UrlField name="notFoundUrl" label={w.notFoundUrl} help={w.notFoundUrlHelp} value={notFoundUrl} onInput={setNotFoundUrl} />
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {w.save}
        </button>
        <button type="button" onClick={onCancel}>
          {w.cancel}
        </button>
      </div>
    </form>
  );
}
