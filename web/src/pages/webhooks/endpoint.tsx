import { useId, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { navigate, onLinkClick } from '../../router.js';
import type { PageProps } from '../../session.js';
import { ConfirmButton } from '../../ui/confirm.js';
import { ErrorLine, Loaded, useLoad } from '../../ui/states.js';
import { ScopeList } from '../settings/scopes.js';
import { SecretOnce } from '../../ui/secret-once.js';
import { useAction } from '../../ui/action.js';
import { useDate } from '../../ui/date.js';
import { DeliveryLog } from './deliveries.js';
import { EndpointForm } from './form.js';
import { StatusBadge } from './list.js';
import { strings } from './strings.js';
import type { Endpoint } from './types.js';
import '../settings/settings.css';
import './webhooks.css';

/** One endpoint: what it is, what may be done to it (test, roll, recover, edit, disable, delete), its delivery log. */
export function WebhookPage({ params, workspace }: PageProps) {
  const w = useStrings(strings);
  const [state, reload] = useLoad(() => api.GET('/api/webhooks/{id}', { params: { path: { id: params.id! } } }));
  // Bumped by an action that makes a delivery (a test, a recovery): the log reads its first page again.
  const [logVersion, setLogVersion] = useState(0);
  const writable = workspace.scopes.includes('webhooksWrite');
  return (
    <div class="settings stack">
      <p>
        <a href="/app/settings/webhooks" onClick={onLinkClick}>
          {w.back}
        </a>
      </p>
      <Loaded state={state} retry={reload}>
        {(endpoint) => (
          <>
            <Details endpoint={endpoint} writable={writable} scopes={workspace.scopes} onChanged={reload} onDelivery={() => setLogVersion((n) => n + 1)} />
            <DeliveryLog endpointId={endpoint.id} canRetry={writable && !endpoint.disabled} version={logVersion} />
          </>
        )}
      </Loaded>
    </div>
  );
}

interface DetailsProps {
  endpoint: Endpoint;
  writable: boolean;
  scopes: PageProps['workspace']['scopes'];
  onChanged: () => void;
  onDelivery: () => void;
}

function Details({ endpoint: e, writable, scopes, onChanged, onDelivery }: DetailsProps) {
  const w = useStrings(strings);
  const date = useDate();
  const [editing, setEditing] = useState(false);
  const [secret, setSecret] = useState<string>();
  const [done, setDone] = useState<string>();
  const { busy, error, run } = useAction();
  const path = { params: { path: { id: e.id } } };
  const act = async (call: () => Promise<{ data?: unknown; error?: unknown }>, message: string, after?: () => void) => {
    setDone(undefined);
    if ((await run(call)) !== undefined) {
      setDone(message);
      after?.();
    }
  };
  return (
    <>
      <section aria-labelledby="wh-endpoint" class="card-inline">
        <h2 id="wh-endpoint" class="wh-url">
          <code>{e.url}</code> <StatusBadge endpoint={e} />
        </h2>
        <dl class="facts">
          {e.description && (
            <>
              <dt>{w.description}</dt>
              <dd>{e.description}</dd>
            </>
          )}
          <dt>{w.events}</dt>
          <dd>
            <ScopeList scopes={e.events} />
          </dd>
          <dt>{w.created}</dt>
          <dd>{date(e.createdAt)}</dd>
        </dl>
      </section>
      {secret && <SecretOnce title={w.secretTitle} intro={w.secretRolled} label={w.secretTitle} value={secret} onDone={() => setSecret(undefined)} />}
      {editing && (
        <EndpointForm
          endpoint={e}
          scopes={scopes}
          onCancel={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            onChanged();
          }}
        />
      )}
      {writable && !editing && (
        <section aria-labelledby="wh-actions" class="stack-tight">
          <h2 id="wh-actions">{w.actionsTitle}</h2>
          <div class="actions">
            <button
              type="button"
              disabled={busy || e.disabled}
              aria-describedby={e.disabled ? 'wh-enable-first' : undefined}
              onClick={() => act(() => api.POST('/api/webhooks/{id}/test', path), w.testSent, onDelivery)}
            >
              {w.sendTest}
            </button>
            <button type="button" onClick={() => setEditing(true)}>
              {w.edit}
            </button>
            {e.disabled ? (
              <button
                type="button"
                disabled={busy}
                onClick={() => act(() => api.PATCH('/api/webhooks/{id}', { ...path, body: { disabled: false } }), w.enabled, onChanged)}
              >
                {w.enable}
              </button>
            ) : (
              <ConfirmButton
                label={w.disable}
                question={w.disableQuestion}
                confirm={w.confirmDisable}
                onConfirm={() => act(() => api.PATCH('/api/webhooks/{id}', { ...path, body: { disabled: true } }), '', onChanged)}
              />
            )}
            <ConfirmButton
              label={w.roll}
              question={w.rollQuestion}
              confirm={w.confirmRoll}
              onConfirm={async () => {
                setDone(undefined);
                const made = await run(() => api.POST('/api/webhooks/{id}/secret', path));
                if (made) setSecret(made.secret);
              }}
            />
            <ConfirmButton
              label={w.deleteEndpoint}
              question={w.deleteQuestion(e.url)}
              confirm={w.confirmDelete}
              onConfirm={async () => {
                if (await run(() => api.DELETE('/api/webhooks/{id}', path))) navigate('/settings/webhooks');
              }}
            />
          </div>
          {e.disabled && (
            <p class="hint" id="wh-enable-first">
              {w.enableFirst}
            </p>
          )}
          <p role="status" class="status">
            {done}
          </p>
          <ErrorLine error={error} />
          {!e.disabled && <Recover endpointId={e.id} onRecovered={onDelivery} />}
        </section>
      )}
    </>
  );
}

const DAY_MS = 86_400_000;
/** How far back a recovery may reach (the server's limit: attempts are kept 30 days). */
const MAX_RECOVER_DAYS = 30;
/** A datetime-local value (the person's own clock) for a moment. */
const localInput = (at: Date) => new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/** Sends again every failed delivery since a chosen time (yesterday unless changed). */
function Recover({ endpointId, onRecovered }: { endpointId: string; onRecovered: () => void }) {
  const w = useStrings(strings);
  const id = useId();
  const [since, setSince] = useState(() => localInput(new Date(Date.now() - DAY_MS)));
  const [requeued, setRequeued] = useState<number>();
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    setRequeued(undefined);
    const body = { since: new Date(since).toISOString() };
    const answer = await run(() => api.POST('/api/webhooks/{id}/recover', { params: { path: { id: endpointId } }, body }));
    if (answer) {
      setRequeued(answer.requeued);
      onRecovered();
    }
  };
  const now = Date.now();
  return (
    <form class="stack-tight card-inline" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{w.recoverTitle}</h3>
      <p class="hint">{w.recoverHelp}</p>
      <label class="field">
        <span>{w.since}</span>
        <input
          type="datetime-local"
          name="since"
          required
          value={since}
          min={localInput(new Date(now - MAX_RECOVER_DAYS * DAY_MS))}
          max={localInput(new Date(now))}
          onInput={(e) => setSince(e.currentTarget.value)}
        />
      </label>
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {w.recover}
        </button>
        <span role="status" class="status">
          {requeued === undefined ? '' : w.recovered(requeued)}
        </span>
      </div>
    </form>
  );
}
