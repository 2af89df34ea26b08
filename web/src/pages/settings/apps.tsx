import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { allScopes, type Me, type PageProps } from '../../session.js';
import { ConfirmButton } from '../../ui/confirm.js';
import { CopyButton } from '../../ui/copy.js';
import { type Scope, ScopeChecks, ScopeList } from './scopes.js';
import { SecretOnce } from '../../ui/secret-once.js';
import { useAction } from '../../ui/action.js';
import { useDate } from '../../ui/date.js';
import { useSettingsStrings } from './use-strings.js';
import { Empty, ErrorLine, Loaded, useLoad } from '../../ui/states.js';
import './settings.css';

type App = components['schemas']['OauthApp'];
type Editing = { kind: 'new' } | { kind: 'edit'; app: App };

/** OAuth apps this workspace registers (operations.md §9): create, edit, delete, new secret. */
export function OAuthAppsSettings({ workspaceId, me }: PageProps) {
  const s = useSettingsStrings();
  const [apps, reload] = useLoad(() => api.GET('/api/workspaces/{id}/oauth-apps', { params: { path: { id: workspaceId } } }));
  const [editing, setEditing] = useState<Editing>();
  const [secret, setSecret] = useState<{ intro: string; value: string; clientId?: string }>();
  const newRef = useRef<HTMLButtonElement>(null);
  const closeForm = () => {
    setEditing(undefined);
    setTimeout(() => newRef.current?.focus());
  };
  return (
    <div class="settings stack">
      <p>{s.appsIntro}</p>
      {secret && (
        <div class="stack-tight">
          {secret.clientId && (
            <p class="actions">
              <span>
                {s.clientId}: <code>{secret.clientId}</code>
              </span>
              <CopyButton text={secret.clientId} label={s.clientId} announce />
            </p>
          )}
          <SecretOnce title={s.clientSecret} intro={secret.intro} label={s.clientSecret} value={secret.value} onDone={() => setSecret(undefined)} />
        </div>
      )}
      {editing ? (
        <AppForm
          key={editing.kind === 'edit' ? editing.app.id : 'new'}
          workspaceId={workspaceId}
          me={me}
          app={editing.kind === 'edit' ? editing.app : undefined}
          onCancel={closeForm}
          onSaved={(made) => {
            closeForm();
            if (made?.clientSecret) setSecret({ intro: s.appCreated(made.name), value: made.clientSecret, clientId: made.clientId });
            reload();
          }}
        />
      ) : (
        <div class="actions">
          <button type="button" ref={newRef} onClick={() => setEditing({ kind: 'new' })}>
            {s.newApp}
          </button>
        </div>
      )}
      <Loaded state={apps} retry={reload}>
        {(list) =>
          list.length === 0 ? (
            <Empty>{s.noApps}</Empty>
          ) : (
            <ul class="items">
              {list.map((app) => (
                <AppRow
                  key={app.id}
                  app={app}
                  workspaceId={workspaceId}
                  onEdit={() => setEditing({ kind: 'edit', app })}
                  onChanged={reload}
                  onSecret={(value) => setSecret({ intro: s.secretRotated, value })}
                />
              ))}
            </ul>
          )
        }
      </Loaded>
    </div>
  );
}

function AppForm({
  workspaceId,
  me,
  app,
  onCancel,
  onSaved,
}: {
  workspaceId: string;
  me: Me;
  app?: App;
  onCancel: () => void;
  onSaved: (made?: components['schemas']['CreatedOauthApp']) => void;
}) {
  const s = useSettingsStrings();
  const [name, setName] = useState(app?.name ?? '');
  const [uris, setUris] = useState(app?.redirectUris.join('\n') ?? '');
  const [scopes, setScopes] = useState<Scope[]>(app?.scopes ?? []);
  const [confidential, setConfidential] = useState(app?.confidential ?? true);
  const { busy, error, setError, run } = useAction({ pickScope: s.pickScope });
  const nameRef = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => nameRef.current?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (scopes.length === 0) return setError('pickScope');
    const redirectUris = uris
      .split('\n')
      .map((u) => u.trim())
      .filter(Boolean);
    const body = { name: name.trim(), redirectUris, scopes };
    if (app) {
      if (await run(() => api.PATCH('/api/workspaces/{id}/oauth-apps/{appId}', { params: { path: { id: workspaceId, appId: app.id } }, body }))) onSaved();
    } else {
      const made = await run(() => api.POST('/api/workspaces/{id}/oauth-apps', { params: { path: { id: workspaceId } }, body: { ...body, confidential } }));
      if (made) onSaved(made);
    }
  };
  const title = app ? s.editing(app.name) : s.newApp;
  return (
    <form class="stack-tight card-inline" onSubmit={submit} aria-label={title}>
      <h2>{title}</h2>
      <label class="field">
        <span>{s.appName}</span>
        <input ref={nameRef} name="name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label class="field">
        <span>{s.redirectUris}</span>
        <textarea
          name="redirectUris"
          required
          rows={3}
          dir="ltr"
          aria-describedby="redirect-help"
          value={uris}
          onInput={(e) => setUris(e.currentTarget.value)}
        />
        <span id="redirect-help" class="hint">
          {s.redirectHelp}
        </span>
      </label>
      {!app && (
        <fieldset class="choice">
          <legend>{s.appType}</legend>
          <label>
            <input type="radio" name="kind" checked={confidential} onChange={() => setConfidential(true)} />
            <span>{s.confidential}</span>
          </label>
          <label>
            <input type="radio" name="kind" checked={!confidential} onChange={() => setConfidential(false)} />
            <span>{s.public}</span>
          </label>
        </fieldset>
      )}
      <ScopeChecks name="scopes" selected={scopes} onChange={setScopes} allowed={allScopes(me)} endpoints={me.scopeEndpoints} help={s.appScopesHelp} />
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {app ? s.saveApp : s.createApp}
        </button>
        <button type="button" onClick={onCancel}>
          {s.cancel}
        </button>
      </div>
    </form>
  );
}

function AppRow({
  app,
  workspaceId,
  onEdit,
  onChanged,
  onSecret,
}: {
  app: App;
  workspaceId: string;
  onEdit: () => void;
  onChanged: () => void;
  onSecret: (value: string) => void;
}) {
  const s = useSettingsStrings();
  const date = useDate();
  const { error, run } = useAction();
  const path = { params: { path: { id: workspaceId, appId: app.id } } };
  return (
    <li class="item">
      <div class="item-main">
        <span class="title">
          {app.name} <span class="badge">{app.confidential ? s.kindConfidential : s.kindPublic}</span>
        </span>
        <span class="actions">
          <span>
            {s.clientId}: <code>{app.clientId}</code>
          </span>
          <CopyButton text={app.clientId} label={`${s.clientId} ${app.name}`} announce />
        </span>
        <ul class="hint">
          {app.redirectUris.map((u) => (
            <li key={u}>
              <code>{u}</code>
            </li>
          ))}
        </ul>
        <ScopeList scopes={app.scopes} />
        <span class="hint">
          {s.created}: {date(app.createdAt)}
        </span>
      </div>
      <div class="item-actions">
        <button type="button" onClick={onEdit} aria-label={`${s.editApp} ${app.name}`}>
          {s.editApp}
        </button>
        {app.confidential && (
          <ConfirmButton
            label={s.rotate}
            accessibleName={`${s.rotate}: ${app.name}`}
            question={s.rotateQuestion}
            confirm={s.confirmRotate}
            onConfirm={async () => {
              const made = await run(() => api.POST('/api/workspaces/{id}/oauth-apps/{appId}/secret', path));
              if (made) onSecret(made.clientSecret);
            }}
          />
        )}
        <ConfirmButton
          label={s.deleteApp}
          accessibleName={`${s.deleteApp} ${app.name}`}
          question={s.deleteAppQuestion(app.name)}
          confirm={s.confirmDelete}
          onConfirm={async () => {
            if (await run(() => api.DELETE('/api/workspaces/{id}/oauth-apps/{appId}', path))) onChanged();
          }}
        />
      </div>
      <ErrorLine error={error} />
    </li>
  );
}
