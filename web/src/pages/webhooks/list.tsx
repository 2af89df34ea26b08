import { useRef, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { onLinkClick } from '../../router.js';
import type { PageProps } from '../../session.js';
import { Empty, Loaded, useLoad } from '../../ui/states.js';
import { ScopeList } from '../settings/scopes.js';
import { SecretOnce } from '../../ui/secret-once.js';
import { useDate } from '../../ui/date.js';
import { BacklogLine } from './backlog.js';
import { EndpointForm } from './form.js';
import { strings } from './strings.js';
import type { Backlog, Endpoint } from './types.js';
import '../settings/settings.css';
import './webhooks.css';

/** Settings → Webhooks: the workspace's endpoints, a new one (its secret shown once), each one's page. */
export function WebhooksPage({ workspace }: PageProps) {
  const w = useStrings(strings);
  const [endpoints, reload] = useLoad(() => api.GET('/api/webhooks', { params: { query: { take: 100 } } }));
  // What each endpoint has still to send; the list shows without it if it fails.
  const [backlog] = useLoad(() => api.GET('/api/webhooks/backlog'));
  const backlogOf = (id: string) => (backlog.kind === 'ready' ? backlog.data.find((b) => b.webhookId === id) : undefined);
  const [open, setOpen] = useState(false);
  const [secret, setSecret] = useState<string>();
  const newRef = useRef<HTMLButtonElement>(null);
  const writable = workspace.scopes.includes('webhooksWrite');
  const close = () => {
    setOpen(false);
    setTimeout(() => newRef.current?.focus());
  };
  return (
    <div class="settings stack">
      <p>{w.intro}</p>
      {!writable && <p class="hint">{w.readOnly}</p>}
      {secret && (
        <SecretOnce
          title={w.secretTitle}
          intro={w.secretCreated}
          label={w.secretTitle}
          value={secret}
          onDone={() => {
            setSecret(undefined);
            newRef.current?.focus();
          }}
        />
      )}
      {writable &&
        (open ? (
          <EndpointForm
            scopes={workspace.scopes}
            onCancel={close}
            onSaved={({ secret: made }) => {
              setOpen(false);
              setSecret(made);
              reload();
            }}
          />
        ) : (
          <div class="actions">
            <button type="button" ref={newRef} onClick={() => setOpen(true)}>
              {w.newEndpoint}
            </button>
          </div>
        ))}
      <section aria-labelledby="wh-endpoints">
        <h2 id="wh-endpoints">{w.endpointsTitle}</h2>
        <Loaded state={endpoints} retry={reload}>
          {(list) =>
            list.length === 0 ? (
              <Empty>{w.noEndpoints}</Empty>
            ) : (
              <ul class="items">
                {list.map((e) => (
                  <EndpointItem key={e.id} endpoint={e} backlog={backlogOf(e.id)} />
                ))}
              </ul>
            )
          }
        </Loaded>
      </section>
    </div>
  );
}

function EndpointItem({ endpoint: e, backlog }: { endpoint: Endpoint; backlog: Backlog | undefined }) {
  const w = useStrings(strings);
  const date = useDate();
  return (
    <li class={e.disabled ? 'item dim' : 'item'}>
      <div class="item-main">
        <span class="title">
          <code>{e.url}</code>
          <StatusBadge endpoint={e} />
        </span>
        {e.description && <span>{e.description}</span>}
        <ScopeList scopes={e.events} />
        {backlog && backlog.pending > 0 && <BacklogLine backlog={backlog} class="hint" />}
        <span class="hint">
          {w.created}: {date(e.createdAt)}
        </span>
      </div>
      <div class="item-actions">
        <a href={`/app/settings/webhooks/${e.id}`} onClick={onLinkClick} aria-label={w.openFor(e.url)}>
          {w.open}
        </a>
      </div>
    </li>
  );
}

/** Active, or disabled and why. */
export function StatusBadge({ endpoint: e }: { endpoint: Endpoint }) {
  const w = useStrings(strings);
  const reason = (e as { disabledReason?: string | null }).disabledReason;
  return e.disabled ? <span class="badge wh-off">{(reason && w.disabledWhy[reason]) || w.disabled}</span> : <span class="badge current">{w.active}</span>;
}
