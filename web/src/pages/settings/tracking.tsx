import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { useStrings } from '../../i18n/index.js';
import { useAction } from '../../ui/action.js';
import { ErrorLine, Loaded, useLoad } from '../../ui/states.js';
import { HostnamesForm } from './tracking-hostnames.js';
import { KeySection } from './tracking-key.js';
import { strings } from './tracking-strings.js';
import './settings.css';
import './tracking.css';

type Tracking = components['schemas']['TrackingSettings'];

/** Settings → Tracking (operations.md §19): where browsers may track from, whether they may report sales, the publishable key and the script tag. */
export function TrackingSettings() {
  const w = useStrings(strings);
  const [state, retry] = useLoad(() => api.GET('/api/tracking'));
  return (
    <div class="settings stack tracking">
      <p>{w.intro}</p>
      <Loaded state={state} retry={retry}>
        {(loaded) => <TrackingForms initial={loaded} />}
      </Loaded>
    </div>
  );
}

/** Every change answers the whole settings (PUT and rotate alike): the latest answer is what each part shows. */
function TrackingForms({ initial }: { initial: Tracking }) {
  const [settings, setSettings] = useState(initial);
  return (
    <>
      <HostnamesForm settings={settings} onSaved={setSettings} />
      <ClientSales settings={settings} onSaved={setSettings} />
      <KeySection settings={settings} onRotated={setSettings} />
    </>
  );
}

/** The clientSales switch, saved at once with the hostnames as saved (not the list being edited). */
function ClientSales({ settings, onSaved }: { settings: Tracking; onSaved: (next: Tracking) => void }) {
  const w = useStrings(strings);
  const [on, setOn] = useState(settings.clientSales);
  const [said, setSaid] = useState('');
  const { busy, error, run } = useAction();
  useEffect(() => setOn(settings.clientSales), [settings.clientSales]);
  const toggle = async (next: boolean) => {
    setSaid('');
    // Shown at once (a controlled box would flip back while the call runs); put back if refused.
    setOn(next);
    const done = await run(() => api.PUT('/api/tracking', { body: { allowedHostnames: settings.allowedHostnames, clientSales: next } }));
    setOn(done ? done.clientSales : !next);
    if (!done) return;
    onSaved(done);
    setSaid(done.clientSales ? w.clientSalesOn : w.clientSalesOff);
  };
  return (
    <section aria-labelledby="client-sales-heading" class="stack-tight">
      <h2 id="client-sales-heading">{w.clientSalesTitle}</h2>
      <label class="tracking-check">
        <input
          type="checkbox"
          name="clientSales"
          checked={on}
          disabled={busy}
          onChange={(e) => void toggle(e.currentTarget.checked)}
          aria-describedby="client-sales-help"
        />
        <span>{w.clientSalesLabel}</span>
      </label>
      <p id="client-sales-help" class="hint">
        {w.clientSalesHelp}
      </p>
      <ErrorLine error={error} />
      <span role="status" class="status">
        {said}
      </span>
    </section>
  );
}
