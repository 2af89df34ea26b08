import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import type { PageProps } from '../../routes.js';
import { ConfirmButton, ErrorLine, Loaded, ScopeChecks, ScopeList, SecretOnce, SelectField, useAction, useDate, useLoad, useSettingsStrings, type Scope } from './ui.js';

type Key = components['schemas']['Key'];
const DAY_MS = 86_400_000;
const EXPIRIES = ['never', '30', '90', '365'] as const;
type Expiry = (typeof EXPIRIES)[number];

/** API keys of api.md: create (the key shown once), list, revoke. */
export function KeysSettings({ workspaceId }: PageProps) {
  const s = useSettingsStrings();
  const [keys, reload] = useLoad(() => api.GET('/api/workspaces/{id}/keys', { params: { path: { id: workspaceId } } }));
  const [open, setOpen] = useState(false);
  const [created, setCreated] = useState<{ name: string; key: string }>();
  const newRef = useRef<HTMLButtonElement>(null);
  const close = () => {
    setOpen(false);
    newRef.current?.focus();
  };
  return (
    <div class="settings stack">
      <p>{s.keysIntro}</p>
      {created && (
        <SecretOnce
          title={s.yourKey}
          intro={s.keyCreated(created.name)}
          label={s.yourKey}
          value={created.key}
          onDone={() => {
            setCreated(undefined);
            newRef.current?.focus();
          }}
        />
      )}
      {open ? (
        <KeyForm
          workspaceId={workspaceId}
          onCancel={close}
          onCreated={(k) => {
            setOpen(false);
            setCreated(k);
            reload();
          }}
        />
      ) : (
        <div class="actions">
          <button type="button" ref={newRef} onClick={() => setOpen(true)}>
            {s.newKey}
          </button>
        </div>
      )}
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">{s.keysList}</h2>
        <Loaded state={keys} retry={reload}>
          {(list) => (list.length === 0 ? <p class="empty">{s.noKeys}</p> : <KeyList keys={list} workspaceId={workspaceId} onChanged={reload} />)}
        </Loaded>
      </section>
    </div>
  );
}

function KeyForm({ workspaceId, onCancel, onCreated }: { workspaceId: string; onCancel: () => void; onCreated: (k: { name: string; key: string }) => void }) {
  const s = useSettingsStrings();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [expiry, setExpiry] = useState<Expiry>('never');
  const { busy, error, setError, run } = useAction();
  const nameRef = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => nameRef.current?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (scopes.length === 0) return setError('pickScope');
    const expiresAt = expiry === 'never' ? undefined : new Date(Date.now() + Number(expiry) * DAY_MS).toISOString();
    const made = await run(() => api.POST('/api/workspaces/{id}/keys', { params: { path: { id: workspaceId } }, body: { name: name.trim(), scopes, expiresAt } }));
    if (made) onCreated({ name: made.name, key: made.key });
  };
  return (
    <form class="stack-tight card-inline" onSubmit={submit} aria-labelledby="new-key-heading">
      <h2 id="new-key-heading">{s.newKey}</h2>
      <label class="field">
        <span>{s.keyName}</span>
        <input ref={nameRef} name="name" required maxLength={190} aria-describedby="key-name-help" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <span id="key-name-help" class="hint">
          {s.keyNameHelp}
        </span>
      </label>
      <ScopeChecks name="scopes" selected={scopes} onChange={setScopes} />
      <SelectField label={s.expiry} name="expiry" value={expiry} onChange={setExpiry} options={EXPIRIES.map((x) => [x, x === 'never' ? s.expiryNever : s[`expiry${x}`]] as const)} />
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {s.createKey}
        </button>
        <button type="button" onClick={onCancel}>
          {s.cancel}
        </button>
      </div>
    </form>
  );
}

function KeyList({ keys, workspaceId, onChanged }: { keys: Key[]; workspaceId: string; onChanged: () => void }) {
  const s = useSettingsStrings();
  const date = useDate();
  const { error, run } = useAction();
  const now = Date.now();
  return (
    <>
      <ErrorLine error={error} />
      <ul class="items">
        {keys.map((k) => {
          const expired = k.expiresAt !== null && new Date(k.expiresAt).getTime() <= now;
          const live = !k.revokedAt && !expired;
          return (
            <li class={live ? 'item' : 'item dim'} key={k.id}>
              <div class="item-main">
                <span class="title">
                  {k.name}
                  {k.revokedAt ? <span class="badge">{s.revoked}</span> : expired ? <span class="badge">{s.expired}</span> : null}
                </span>
                <dl class="meta">
                  <div>
                    <dt>{s.prefix}</dt>
                    <dd>
                      <code>{k.prefix}…</code>
                    </dd>
                  </div>
                  <div>
                    <dt>{s.created}</dt>
                    <dd>{date(k.createdAt)}</dd>
                  </div>
                  <div>
                    <dt>{s.expiry}</dt>
                    <dd>{k.expiresAt ? date(k.expiresAt) : s.never}</dd>
                  </div>
                  <div>
                    <dt>{s.lastUsed}</dt>
                    <dd>{k.lastUsedAt ? date(k.lastUsedAt) : s.notUsed}</dd>
                  </div>
                  {k.revokedAt && (
                    <div>
                      <dt>{s.revoked}</dt>
                      <dd>{date(k.revokedAt)}</dd>
                    </div>
                  )}
                </dl>
                <ScopeList scopes={k.scopes} />
              </div>
              {!k.revokedAt && (
                <div class="item-actions">
                  <ConfirmButton
                    label={s.revoke}
                    accessibleName={`${s.revoke} ${k.name}`}
                    question={s.revokeKeyQuestion(k.name)}
                    confirm={s.confirmRevoke}
                    onConfirm={async () => {
                      if (await run(() => api.DELETE('/api/workspaces/{id}/keys/{keyId}', { params: { path: { id: workspaceId, keyId: k.id } } }))) onChanged();
                    }}
                  />
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}
