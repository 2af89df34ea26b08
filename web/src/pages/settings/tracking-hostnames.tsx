import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { useAction } from '../../ui/action.js';
import { Empty, ErrorLine } from '../../ui/states.js';
import type { components } from '../../api/schema.js';
import { strings } from './tracking-strings.js';

type Tracking = components['schemas']['TrackingSettings'];

/**
 * The allowed hostnames, edited as a list and saved together (PUT /api/tracking replaces them).
 * Nothing is checked here beyond blanks and repeats: the API's 400 says what is wrong with a
 * hostname, in the page's language.
 */
export function HostnamesForm({ settings, onSaved }: { settings: Tracking; onSaved: (next: Tracking) => void }) {
  const w = useStrings(strings);
  const [draft, setDraft] = useState(settings.allowedHostnames);
  const [typed, setTyped] = useState('');
  const [saved, setSaved] = useState(false);
  const { busy, error, setError, run } = useAction({ alreadyListed: w.alreadyListed });
  // The server normalises what it keeps (lowercase, no trailing dot): the list shows that after a save.
  // Keyed by the saved list's content, so another part's save (clientSales) keeps an unsaved edit.
  const savedList = settings.allowedHostnames.join('\n');
  useEffect(() => setDraft(settings.allowedHostnames), [savedList]);

  const listed = (host: string) => draft.some((h) => h.toLowerCase() === host.toLowerCase());
  const add = () => {
    const host = typed.trim();
    if (host === '') return;
    if (listed(host)) return setError('alreadyListed');
    setDraft([...draft, host]);
    setTyped('');
    setSaved(false);
  };
  const remove = (host: string) => {
    setDraft(draft.filter((h) => h !== host));
    setSaved(false);
  };
  const save = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    // A hostname typed but not yet added is meant to be saved too.
    const host = typed.trim();
    const list = host === '' || listed(host) ? draft : [...draft, host];
    setDraft(list);
    setTyped('');
    const done = await run(() => api.PUT('/api/tracking', { body: { allowedHostnames: list, clientSales: settings.clientSales } }));
    if (!done) return;
    onSaved(done);
    setSaved(true);
  };
  const changed = draft.join('\n') !== savedList;

  return (
    <section aria-labelledby="hostnames-heading" class="stack-tight">
      <h2 id="hostnames-heading">{w.hostnamesTitle}</h2>
      <p id="hostnames-help" class="hint">
        {w.hostnamesHelp}
      </p>
      {draft.length === 0 ? (
        <Empty>{w.noHostnames}</Empty>
      ) : (
        <ul class="items tracking-hosts" aria-labelledby="hostnames-heading">
          {draft.map((host) => (
            <li class="item" key={host}>
              <code class="tracking-host">{host}</code>
              <button type="button" class="danger" onClick={() => remove(host)} aria-label={w.removeHostname(host)}>
                {w.remove}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form class="stack-tight" onSubmit={save}>
        <div class="tracking-add">
          <label class="field">
            <span>{w.newHostname}</span>
            <input
              name="hostname"
              class="mono"
              dir="ltr"
              placeholder="shop.example"
              autocomplete="off"
              spellcheck={false}
              maxLength={253}
              value={typed}
              onInput={(e) => setTyped(e.currentTarget.value)}
              // Enter adds the hostname to the list; Save sends the list.
              onKeyDown={(e) => {
                if (e.key !== 'Enter') return;
                e.preventDefault();
                add();
              }}
              aria-describedby="hostnames-help"
            />
          </label>
          <button type="button" onClick={add}>
            {w.add}
          </button>
        </div>
        <ErrorLine error={error} />
        <div class="actions">
          <button type="submit" disabled={busy}>
            {w.save}
          </button>
          <span role="status" class="status">
            {saved ? w.saved : changed ? w.unsaved : ''}
          </span>
        </div>
      </form>
    </section>
  );
}
