import { useId, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import { useStrings } from '../../i18n/index.js';
import { Empty, ErrorLine, Loaded, useLoad } from '../../ui/states.js';
import { Table } from '../../ui/table.js';
import { ConfirmButton } from '../../ui/confirm.js';
import { CopyButton } from '../../ui/copy.js';
import { useAction } from '../../ui/action.js';
import { useDate } from '../../ui/date.js';
import { reachableFromInternet } from './public-url.js';
import { strings } from './strings.js';
import '../settings/settings.css';
import '../webhooks/webhooks.css';

type Connection = paths['/api/integrations/stripe']['get']['responses'][200]['content']['application/json'];
type StripeEvent = paths['/api/integrations/stripe/events']['get']['responses'][200]['content']['application/json'][number];

/** GET /api/integrations/stripe, with "not connected" (404) as an answer rather than a failure. */
async function loadConnection(): Promise<{ data?: Connection | null; error?: unknown }> {
  const { data, error, response } = await api.GET('/api/integrations/stripe');
  if (response.status === 404) return { data: null };
  return error !== undefined ? { error } : { data };
}

/** Settings → Integrations → Stripe: create the URL, copy it, paste the signing secret, the last events and their outcomes. */
export function StripeIntegration() {
  const p = useStrings(strings);
  const [state, reload] = useLoad(loadConnection);
  return (
    <div class="settings stack">
      <section aria-labelledby="stripe-heading" class="stack-tight">
        <h2 id="stripe-heading">{p.stripe}</h2>
        <p>{p.intro}</p>
        <Loaded state={state} retry={reload}>
          {(connection) => (connection ? <Connected connection={connection} onChanged={reload} /> : <NotConnected onCreated={reload} />)}
        </Loaded>
      </section>
      {state.kind === 'ready' && state.data && <Events />}
    </div>
  );
}

function NotConnected({ onCreated }: { onCreated: () => void }) {
  const p = useStrings(strings);
  const { busy, error, run } = useAction();
  return (
    <div class="stack-tight">
      <p>{p.notConnected}</p>
      <div class="actions">
        <button type="button" disabled={busy} onClick={async () => (await run(() => api.POST('/api/integrations/stripe'))) && onCreated()}>
          {p.createUrl}
        </button>
      </div>
      <ErrorLine error={error} />
    </div>
  );
}

function Connected({ connection: c, onChanged }: { connection: Connection; onChanged: () => void }) {
  const p = useStrings(strings);
  const date = useDate();
  const { error, run } = useAction();
  const connected = c.status === 'connected';
  return (
    <div class="stack-tight">
      <dl class="facts">
        <dt>{p.status}</dt>
        <dd>
          <span class={connected ? 'badge current' : 'badge'}>{p.statuses[c.status] ?? c.status}</span>
        </dd>
        {connected && c.connectedAt && (
          <>
            <dt>{p.connectedAt}</dt>
            <dd>{date(c.connectedAt)}</dd>
          </>
        )}
        {connected && (
          <>
            <dt>{p.mode}</dt>
            <dd>{c.testMode ? p.test : p.live}</dd>
          </>
        )}
      </dl>
      <ol class="stripe-steps card-inline">
        <li>
          <p>{p.step1}</p>
          <p class="stripe-url">
            <code>{c.webhookUrl}</code>
            <CopyButton text={c.webhookUrl} label={p.webhookUrl} announce />
          </p>
          {!reachableFromInternet(c.webhookUrl) && (
            <p class="warning" role="note">
              {p.unreachable}
            </p>
          )}
        </li>
        <li>
          <p>{p.step2}</p>
          <ul class="chips">
            {c.events.map((e) => (
              <li key={e}>
                <code>{e}</code>
              </li>
            ))}
          </ul>
        </li>
        <li>
          <SecretForm connected={connected} testMode={Boolean(c.testMode)} onSaved={onChanged} />
        </li>
      </ol>
      <ErrorLine error={error} />
      <div class="actions">
        <ConfirmButton
          label={p.disconnect}
          question={p.disconnectQuestion}
          confirm={p.confirmDisconnect}
          onConfirm={async () => {
            if (await run(() => api.DELETE('/api/integrations/stripe'))) onChanged();
          }}
        />
      </div>
    </div>
  );
}

function SecretForm({ connected, testMode: wasTest, onSaved }: { connected: boolean; testMode: boolean; onSaved: () => void }) {
  const p = useStrings(strings);
  const id = useId();
  const [secret, setSecret] = useState('');
  const [testMode, setTestMode] = useState(wasTest);
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    if (await run(() => api.PUT('/api/integrations/stripe', { body: { signingSecret: secret.trim(), testMode } }))) {
      setSecret('');
      onSaved();
    }
  };
  return (
    <form class="stack-tight" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <p id={`${id}-title`}>{connected ? p.replaceIntro : p.step3}</p>
      {/* for/id, the hint outside the label: the field's name is its label alone, the hint its description. */}
      <div class="field">
        <label for={`${id}-secret`}>{p.signingSecret}</label>
        <input
          id={`${id}-secret`}
          name="signingSecret"
          type="password"
          autocomplete="off"
          spellcheck={false}
          dir="ltr"
          required
          placeholder="whsec_…"
          aria-describedby={`${id}-help`}
          value={secret}
          onInput={(e) => setSecret(e.currentTarget.value)}
        />
        <span id={`${id}-help`} class="hint">
          {p.signingSecretHelp}
        </span>
      </div>
      <label class="check">
        <input type="checkbox" name="testMode" checked={testMode} onChange={(e) => setTestMode(e.currentTarget.checked)} />
        <span>{p.testMode}</span>
      </label>
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {connected ? p.replaceSecret : p.connect}
        </button>
      </div>
    </form>
  );
}

/** The last events Stripe sent, newest first, with what each became. */
function Events() {
  const p = useStrings(strings);
  const date = useDate();
  const [state, reload] = useLoad(() => api.GET('/api/integrations/stripe/events', { params: { query: { take: 50 } } }));
  return (
    <section aria-labelledby="stripe-events" class="stack-tight">
      <div class="wh-log-head">
        <h2 id="stripe-events">{p.eventsTitle}</h2>
        <button type="button" onClick={reload}>
          {p.refresh}
        </button>
      </div>
      <Loaded state={state} retry={reload}>
        {(events: StripeEvent[]) =>
          events.length === 0 ? (
            <Empty>{p.noEvents}</Empty>
          ) : (
            <Table class="stripe-events" region={{ class: 'wh-scroll', label: p.eventsLabel }} columns={[p.type, p.outcome, p.sale, p.received]}>
              {events.map((e) => (
                <tr key={e.id}>
                  <td>
                    <code>{e.type}</code>
                    <span class="hint wh-id">
                      <code>{e.stripeId}</code>
                    </span>
                  </td>
                  <td>
                    <span>{p.outcomes[e.outcome] ?? e.outcome}</span>
                    {e.reason ? <span class="hint">{p.reasons[e.reason] ?? e.reason}</span> : null}
                  </td>
                  <td>{e.saleId ? <code class="wh-id">{e.saleId}</code> : p.none}</td>
                  <td>{date(e.createdAt)}</td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loaded>
    </section>
  );
}
