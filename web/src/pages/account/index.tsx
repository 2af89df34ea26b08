import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { useStrings } from '../../i18n/index.js';
import { meChanged } from '../../me-changed.js';
import { type PageProps, workspaceOf } from '../../session.js';
import { Empty, ErrorLine, Loaded, useLoad } from '../../ui/states.js';
import { ConfirmButton } from '../../ui/confirm.js';
import { ScopeList } from '../settings/scopes.js';
import { SelectField } from '../../ui/field.js';
import { useAction } from '../../ui/action.js';
import { useDate } from '../../ui/date.js';
import { useSettingsStrings } from '../settings/use-strings.js';
import { asMade, CredentialForm, NewCredential, type Made } from '../settings/credential.js';
import { ShortcutsSetting } from './shortcuts.js';
import { SsoLink } from './sso-link.js';
import { strings } from './strings.js';
import { securityStrings } from './security-strings.js';
import { onLinkClick } from '../../router.js';
import '../settings/settings.css';

type Token = components['schemas']['HumanToken'];
const EXPIRIES = ['30', '90', '365'] as const;

/** A person's own account (operations.md §7–8): profile and personal tokens; password, two-factor and sessions are on Security. */
export function AccountPage({ me, workspaceId }: PageProps) {
  const sec = useStrings(securityStrings);
  return (
    <div class="settings stack">
      <p>
        <a href="/app/account/security" onClick={onLinkClick}>
          {sec.securityLink}
        </a>
      </p>
      <Profile me={me} />
      <Tokens me={me} workspaceId={workspaceId} />
      <SsoLink workspaceId={workspaceId} />
      <ShortcutsSetting />
    </div>
  );
}

function Profile({ me }: { me: PageProps['me'] }) {
  const a = useStrings(strings);
  const [name, setName] = useState(me.user.name);
  const [current, setCurrent] = useState('');
  const [saved, setSaved] = useState(false);
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    if (await run(() => api.PATCH('/api/me', { body: { name: name.trim(), currentPassword: current } }))) {
      setSaved(true);
      setCurrent('');
      meChanged();
    }
  };
  return (
    <section aria-labelledby="profile-heading">
      <h2 id="profile-heading">{a.profileTitle}</h2>
      <form class="stack-tight" onSubmit={submit}>
        <label class="field">
          <span>{a.name}</span>
          <input name="name" autocomplete="name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>{a.email}</span>
          <input name="email" type="email" readOnly value={me.user.email} aria-describedby="email-help" />
          <span id="email-help" class="hint">
            {a.emailFixed}
          </span>
        </label>
        <label class="field">
          <span>{a.currentPassword}</span>
          <input
            name="currentPassword"
            id="profile-current"
            type="password"
            autocomplete="current-password"
            required
            value={current}
            onInput={(e) => setCurrent(e.currentTarget.value)}
            aria-describedby="profile-current-help"
          />
          <span id="profile-current-help" class="hint">
            {a.currentPasswordHelp}
          </span>
        </label>
        <ErrorLine error={error} />
        <div class="actions">
          <button type="submit" disabled={busy}>
            {a.saveProfile}
          </button>
          <span role="status" class="status">
            {saved ? a.profileSaved : ''}
          </span>
        </div>
      </form>
    </section>
  );
}

function Tokens({ me, workspaceId }: { me: PageProps['me']; workspaceId: string }) {
  const a = useStrings(strings);
  const s = useSettingsStrings();
  const date = useDate();
  const [tokens, reload] = useLoad(() => api.GET('/api/me/tokens'));
  const { error, run } = useAction();
  const workspaceName = (id: string) => me.workspaces.find((w) => w.id === id)?.name ?? a.unknownWorkspace;
  return (
    <section aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">{a.tokensTitle}</h2>
      <p>{a.tokensIntro}</p>
      <NewCredential
        newLabel={a.newToken}
        secretTitle={a.yourToken}
        createdIntro={a.tokenCreated}
        onCreated={reload}
        form={(handlers) => <TokenForm me={me} workspaceId={workspaceId} {...handlers} />}
      />
      <ErrorLine error={error} />
      <Loaded state={tokens} retry={reload}>
        {(list) =>
          list.length === 0 ? (
            <Empty>{a.noTokens}</Empty>
          ) : (
            <ul class="items">
              {list.map((t: Token) => (
                <li class="item" key={t.id}>
                  <div class="item-main">
                    <span class="title">{t.name}</span>
                    <dl class="meta">
                      <div>
                        <dt>{a.workspace}</dt>
                        <dd>{workspaceName(t.workspaceId)}</dd>
                      </div>
                      <div>
                        <dt>{s.prefix}</dt>
                        <dd>
                          <code>{t.prefix}…</code>
                        </dd>
                      </div>
                      <div>
                        <dt>{s.expiry}</dt>
                        <dd>{date(t.expiresAt)}</dd>
                      </div>
                      <div>
                        <dt>{s.lastUsed}</dt>
                        <dd>{t.lastUsedAt ? date(t.lastUsedAt) : s.notUsed}</dd>
                      </div>
                    </dl>
                    <ScopeList scopes={t.scopes} />
                  </div>
                  <div class="item-actions">
                    <ConfirmButton
                      label={s.revoke}
                      accessibleName={`${s.revoke} ${t.name}`}
                      question={a.revokeTokenQuestion(t.name)}
                      confirm={s.confirmRevoke}
                      onConfirm={async () => {
                        if (await run(() => api.DELETE('/api/me/tokens/{id}', { params: { path: { id: t.id } } }))) reload();
                      }}
                    />
                  </div>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </section>
  );
}

/** A personal token is a credential for one workspace: its scopes are at most what the person's role there allows. */
function TokenForm({ me, workspaceId, ...handlers }: { me: PageProps['me']; workspaceId: string; onCancel: () => void; onCreated: (made: Made) => void }) {
  const a = useStrings(strings);
  const s = useSettingsStrings();
  const [workspace, setWorkspace] = useState(workspaceId);
  // What the person's role allows in the chosen workspace, as the server says (GET /api/me).
  const chosen = workspaceOf(me, workspace);
  return (
    <CredentialForm
      {...handlers}
      heading={a.newToken}
      level={3}
      nameLabel={a.tokenName}
      expiryLabel={s.expiry}
      expiries={EXPIRIES.map((x) => [x, s[`expiry${x}`]] as const)}
      initialExpiry="90"
      submitLabel={a.createToken}
      allowed={chosen?.scopes ?? []}
      endpoints={me.scopeEndpoints}
      scopesHelp={chosen?.role === 'viewer' ? a.viewerNote : undefined}
      create={({ name, scopes, expiresAt }) =>
        api.POST('/api/me/tokens', { body: { name, workspaceId: workspace, scopes, expiresAt: expiresAt! } }).then((r) => asMade(r, (t) => t.token))
      }
    >
      <SelectField
        label={a.workspace}
        name="workspace"
        value={workspace}
        onChange={setWorkspace}
        options={me.workspaces.map((w) => [w.id, `${w.name} (${s.roles[w.role]})`] as const)}
      />
    </CredentialForm>
  );
}
