import { useContext, useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../../api/client.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import type { Me } from '../../session.js';
import { LangSwitch } from '../lang-switch.js';
import { strings } from './strings.js';
import '../settings/settings.css';
import { ErrorLine } from '../../ui/states.js';
import { NewPasswordField } from '../../ui/field.js';

interface Props {
  /** Who is signed in, or null. */
  me: Me | null;
  /** Joined: the app chooses this workspace and opens the overview. */
  onAccepted: (workspaceId: string) => void;
  /** Signed in on this page (the app reads /api/me again). */
  onSignedIn: () => Promise<void>;
  onSignOut: () => void;
}

/**
 * The invitation link's page (/app/invite?token=…, operations.md §7): signed in, accept with
 * this account; not signed in, create the account under the invited address, or sign in and
 * accept.
 */
export function InvitePage({ me, onAccepted, onSignedIn, onSignOut }: Props) {
  const i = useStrings(strings);
  const { lang } = useContext(LangContext);
  const token = new URLSearchParams(location.search).get('token');
  const [mode, setMode] = useState<'new' | 'existing'>('new');
  const [busy, setBusy] = useState(false);
  // Kept as answered, worded at render (a language change rewords it).
  const [failure, setError] = useState<{ answer: unknown }>();
  const error = failure && errorText(failure.answer, lang);
  const about = useInviteDescription(token, (answer) => setError({ answer }));

  const attempt = async (steps: () => Promise<string | undefined>) => {
    setBusy(true);
    setError(undefined);
    try {
      const workspaceId = await steps();
      if (workspaceId) onAccepted(workspaceId);
    } catch (err) {
      setError({ answer: err });
    } finally {
      setBusy(false);
    }
  };
  /** POST /api/invites/accept; the error (in the page's language) stays on the page. */
  const accept = async (body: { token: string; name?: string; password?: string }) => {
    const { data, error: failed } = await api.POST('/api/invites/accept', { body });
    if (failed) setError({ answer: failed });
    return data?.workspaceId;
  };

  const acceptSignedIn = () => attempt(() => accept({ token: token! }));
  const createAccount = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    void attempt(() => accept({ token: token!, name: String(form.get('name')), password: String(form.get('password')) }));
  };
  const signInAndAccept = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    void attempt(async () => {
      const { error: failed } = await api.POST('/api/auth/login', { body: { email: String(form.get('email')), password: String(form.get('password')) } });
      if (failed) {
        setError({ answer: failed });
        return undefined;
      }
      const joined = await accept({ token: token! });
      // Signed in either way: a refusal (another address, already a member) is shown to this account.
      if (!joined) await onSignedIn();
      return joined;
    });
  };

  const errorLine = <ErrorLine error={error} />;
  const intro = about ? (
    <>
      <p>{i.invitedBy(about.inviterName, about.workspaceName, about.role)}</p>
      <p class="hint">{i.invitedAddress(about.email)}</p>
    </>
  ) : (
    <p>{i.intro}</p>
  );
  return (
    <main id="main" class="card invite">
      <LangSwitch />
      <h1>{i.title}</h1>
      {!token ? (
        <p role="alert">{i.noToken}</p>
      ) : me ? (
        <div class="stack">
          {intro}
          <p>{i.signedInAs(me.user.name, me.user.email)}</p>
          <p class="hint">{i.otherEmail}</p>
          {errorLine}
          <form
            class="actions"
            onSubmit={(e) => {
              e.preventDefault();
              void acceptSignedIn();
            }}
          >
            <button type="submit" disabled={busy}>
              {busy ? i.working : i.accept}
            </button>
            <button type="button" onClick={onSignOut}>
              {i.signOut}
            </button>
          </form>
        </div>
      ) : (
        <div class="stack">
          {intro}
          <div class="choose" role="group" aria-label={i.chooseLabel}>
            <button type="button" aria-pressed={mode === 'new'} onClick={() => setMode('new')}>
              {i.newAccount}
            </button>
            <button type="button" aria-pressed={mode === 'existing'} onClick={() => setMode('existing')}>
              {i.haveAccount}
            </button>
          </div>
          {mode === 'new' ? (
            <form class="stack" onSubmit={createAccount} key="new">
              <p>{i.newIntro}</p>
              <label class="field">
                <span>{i.name}</span>
                <input name="name" autocomplete="name" required maxLength={100} />
              </label>
              <NewPasswordField label={i.newPassword} help={i.newPasswordHelp} id="invite-password-help" />
              {errorLine}
              <button type="submit" disabled={busy}>
                {busy ? i.working : i.createAndJoin}
              </button>
            </form>
          ) : (
            <form class="stack" onSubmit={signInAndAccept} key="existing">
              <p>{i.signInIntro}</p>
              <label class="field">
                <span>{i.email}</span>
                <input name="email" type="email" autocomplete="username" required />
              </label>
              <label class="field">
                <span>{i.password}</span>
                <input name="password" type="password" autocomplete="current-password" required />
              </label>
              {errorLine}
              <button type="submit" disabled={busy}>
                {busy ? i.working : i.signInAndJoin}
              </button>
            </form>
          )}
        </div>
      )}
    </main>
  );
}

type InviteDescription = { email: string; role: 'owner' | 'member' | 'viewer'; workspaceName: string; inviterName: string | null };

/** Who invites, to which workspace, as what (POST /api/invites/lookup); a dead link is said at once. */
function useInviteDescription(token: string | null, onRefused: (answer: unknown) => void): InviteDescription | undefined {
  const [about, setAbout] = useState<InviteDescription>();
  useEffect(() => {
    if (!token) return;
    void api.POST('/api/invites/lookup', { body: { token } }).then(({ data, error }) => (data ? setAbout(data) : onRefused(error)));
  }, [token]);
  return about;
}
