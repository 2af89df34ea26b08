import { useId, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { ErrorLine } from '../../ui/states.js';
import { useAction } from '../../ui/action.js';
import { strings } from './strings.js';
import { urlOrNull, type Domain } from './types.js';
import { UrlField } from './url-field.js';

/** A host to claim, and optionally where its root and unknown paths send visitors (POST /api/domains). */
export function ClaimForm({ onClaimed }: { onClaimed: (domain: Domain) => void }) {
  const w = useStrings(strings);
  const id = useId();
  const [host, setHost] = useState('');
  const [rootUrl, setRootUrl] = useState('');
  const [notFoundUrl, setNotFoundUrl] = useState('');
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const made = await run(() => api.POST('/api/domains', { body: { host: host.trim(), rootUrl: urlOrNull(rootUrl), notFoundUrl: urlOrNull(notFoundUrl) } }));
    if (!made) return;
    setHost('');
    setRootUrl('');
    setNotFoundUrl('');
    onClaimed(made);
  };
  return (
    <form class="stack-tight card-inline" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{w.claimTitle}</h2>
      <div class="field">
        <label for={`${id}-host`}>{w.host}</label>
        <input
          id={`${id}-host`}
          name="host"
          required
          maxLength={300}
          dir="ltr"
          autocomplete="off"
          spellcheck={false}
          placeholder="brand.link"
          aria-describedby={`${id}-host-help`}
          value={host}
          onInput={(e) => setHost(e.currentTarget.value)}
        />
        <span id={`${id}-host-help`} class="hint">
          {w.hostHelp}
        </span>
      </div>
      <UrlField name="rootUrl" label={w.rootUrl} help={w.rootUrlHelp} value={rootUrl} onInput={setRootUrl} />
      <UrlField name="notFoundUrl" label={w.notFoundUrl} help={w.notFoundUrlHelp} value={notFoundUrl} onInput={setNotFoundUrl} />
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {w.claim}
        </button>
      </div>
    </form>
  );
}
