import { api } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import type { PageProps } from '../../session.js';
import { asMade, CredentialForm, NewCredential } from './credential.js';
import { ConfirmButton } from '../../ui/confirm.js';
import { ScopeList } from './scopes.js';
import { useAction } from '../../ui/action.js';
import { useDate } from '../../ui/date.js';
import { useSettingsStrings } from './use-strings.js';
import { Empty, ErrorLine, Loaded, useLoad } from '../../ui/states.js';
import './settings.css';

type Key = components['schemas']['Key'];
const EXPIRIES = ['never', '30', '90', '365'] as const;

/** API keys of api.md: create (the key shown once), list, revoke. */
export function KeysSettings({ workspaceId, workspace, me }: PageProps) {
  const s = useSettingsStrings();
  const [keys, reload] = useLoad(() => api.GET('/api/workspaces/{id}/keys', { params: { path: { id: workspaceId } } }));
  return (
    <div class="settings stack">
      <p>{s.keysIntro}</p>
      <NewCredential
        newLabel={s.newKey}
        secretTitle={s.yourKey}
        createdIntro={s.keyCreated}
        onCreated={reload}
        form={(handlers) => (
          <CredentialForm
            {...handlers}
            heading={s.newKey}
            nameLabel={s.keyName}
            nameHelp={s.keyNameHelp}
            expiryLabel={s.expiry}
            expiries={EXPIRIES.map((x) => [x, x === 'never' ? s.expiryNever : s[`expiry${x}`]] as const)}
            initialExpiry="never"
            submitLabel={s.createKey}
            allowed={workspace.scopes}
            endpoints={me.scopeEndpoints}
            create={(body) => api.POST('/api/workspaces/{id}/keys', { params: { path: { id: workspaceId } }, body }).then((r) => asMade(r, (k) => k.key))}
          />
        )}
      />
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">{s.keysList}</h2>
        <Loaded state={keys} retry={reload}>
          {(list) => (list.length === 0 ? <Empty>{s.noKeys}</Empty> : <KeyList keys={list} workspaceId={workspaceId} onChanged={reload} />)}
        </Loaded>
      </section>
    </div>
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
