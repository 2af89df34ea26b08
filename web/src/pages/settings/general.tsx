import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { meChanged } from '../../me-changed.js';
import type { PageProps } from '../../session.js';
import { ErrorLine, Loaded, useLoad } from '../../ui/states.js';
import { useAction } from '../../ui/action.js';
import { useLang } from '../../i18n/index.js';
import { useSettingsStrings } from './use-strings.js';
import './settings.css';

/** The workspace's name and whether it requires two-factor sign-in (what an owner may change), and its plan and limits, read-only. */
export function GeneralSettings({ workspaceId }: PageProps) {
  const s = useSettingsStrings();
  const [state, retry] = useLoad(() => api.GET('/api/workspaces'));
  return (
    <div class="settings stack">
      <p>{s.generalIntro}</p>
      <Loaded state={state} retry={retry}>
        {(list) => {
          const workspace = list.find((w) => w.id === workspaceId);
          return workspace ? (
            <Form workspace={workspace} />
          ) : (
            <p role="alert" class="error">
              {s.failedToLoad}
            </p>
          );
        }}
      </Loaded>
    </div>
  );
}

interface Workspace {
  id: string;
  name: string;
  plan: string;
  rateLimitPerMinute: number;
  maxBulkItems: number;
  requireMfa: boolean;
}

function Form({ workspace }: { workspace: Workspace }) {
  const s = useSettingsStrings();
  const [name, setName] = useState(workspace.name);
  const [saved, setSaved] = useState(false);
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    const done = await run(() => api.PATCH('/api/workspaces/{id}', { params: { path: { id: workspace.id } }, body: { name: name.trim() } }));
    if (done) {
      setSaved(true);
      meChanged();
    }
  };
  const number = new Intl.NumberFormat(useLang() === 'ar' ? 'ar' : 'en');
  return (
    <>
      <form class="stack-tight" onSubmit={submit}>
        <label class="field">
          <span>{s.workspaceName}</span>
          <input name="name" required maxLength={190} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <ErrorLine error={error} />
        <div class="actions">
          <button type="submit" disabled={busy}>
            {s.rename}
          </button>
          <span role="status" class="status">
            {saved ? s.saved : ''}
          </span>
        </div>
      </form>
      <RequireMfa workspace={workspace} />
      <section aria-labelledby="plan-heading">
        <h2 id="plan-heading">{s.plan}</h2>
        <dl class="facts">
          <dt>{s.plan}</dt>
          <dd>{s.plans[workspace.plan] ?? workspace.plan}</dd>
          <dt>{s.rateLimit}</dt>
          <dd>{number.format(workspace.rateLimitPerMinute)}</dd>
          <dt>{s.maxBulk}</dt>
          <dd>{number.format(workspace.maxBulkItems)}</dd>
        </dl>
        <p class="hint">{s.planHelp}</p>
      </section>
    </>
  );
}

/** The owner's switch: members need two-factor sign-in here (PATCH /api/workspaces/{id} `{ requireMfa }`). */
function RequireMfa({ workspace }: { workspace: Workspace }) {
  const s = useSettingsStrings();
  const [on, setOn] = useState(workspace.requireMfa);
  const [said, setSaid] = useState('');
  const { busy, error, run } = useAction();
  const toggle = async (next: boolean) => {
    setSaid('');
    // Shown at once; put back if the server refuses (e.g. no two-factor of your own yet).
    setOn(next);
    const done = await run(() => api.PATCH('/api/workspaces/{id}', { params: { path: { id: workspace.id } }, body: { requireMfa: next } }));
    setOn(done ? done.requireMfa : !next);
    if (done) {
      setSaid(done.requireMfa ? s.requireMfaOn : s.requireMfaOff);
      meChanged();
    }
  };
  return (
    <section aria-labelledby="require-mfa-heading" class="stack-tight">
      <h2 id="require-mfa-heading">{s.requireMfaTitle}</h2>
      <label class="check">
        <input
          type="checkbox"
          name="requireMfa"
          checked={on}
          disabled={busy}
          onChange={(e) => void toggle(e.currentTarget.checked)}
          aria-describedby="require-mfa-help"
        />
        <span>{s.requireMfaLabel}</span>
      </label>
      <p id="require-mfa-help" class="hint">
        {s.requireMfaHelp}
      </p>
      <ErrorLine error={error} />
      <span role="status" class="status">
        {said}
      </span>
    </section>
  );
}
