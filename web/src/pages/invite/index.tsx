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
  /** A workspace's invitation (/app/invite) or a partner program's (/app/partner/invite, operations.md §18). */
  kind?: 'member' | 'partner';
  /** Who is signed in, or null. */
  me: Me | null;
  /** Joined a workspace: the app chooses it and opens the overview. */
  onAccepted: (workspaceId: string) => void;
  /** Signed in on this page (the app reads /api/me again). */
  onSignedIn: () => Promise<void>;
  onSignOut: () => void;
}

/**
 * The invitation link's page (/app/invite?token=…, operations.md §7; a partner's at
 * /app/partner/invite, §18): signed in, accept with this account; not signed in, create the
 * account under the invited address, or sign in and accept.
 */
export function InvitePage({ kind = 'member', me, onAccepted, onSignedIn, onSignOut }: Props) {
  const i = useStrings(strings);
  const { lang } = useContext(LangContext);
  const token = new URLSearchParams(location.search).get('token');
  const [mode, setMode] = useState<'new' | 'existing'>('new');
  const [busy, setBusy] = useState(false);
  // A partner invitation accepted: the program joined (the partner portal comes with its own page).
  const [joinedProgram, setJoinedProgram] = useState<string>();
  // Kept as answered, worded at render (a language change rewords it).
  const [failure, setError] = useState<{ answer: unknown }>();
  const error = failure && errorText(failure.answer, lang);
  const about = useInviteDescription(kind, token, (answer) => setError({ answer }));

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
  /** POST /api/invites/accept (or a partner's); the error (in the page's language) stays on the page. */
  const accept = async (body: { token: string; name?: string; password?: string }) => {
    if (kind === 'partner') {
      const { error: failed } = await api.POST('/api/partner-invites/accept', { body });
      if (failed) setError({ answer: failed });
      else {
        setJoinedProgram(about?.kind === 'partner' ? about.programName : '');
        await onSignedIn();
      }
      return undefined;
    }
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
      <p>
        {about.kind === 'partner' ? i.partnerInvited(about.partnerName, about.programName) : i.invitedBy(about.inviterName, about.workspaceName, about.role)}
      </p>
      <p class="hint">{i.invitedAddress(about.email)}</p>
    </>
  ) : (
    <p>{kind === 'partner' ? i.partnerIntro : i.intro}</p>
  );
  return (
    <main id="main" class="card invite">
      <LangSwitch />
      <h1>{kind === 'partner' ? i.partnerTitle : i.title}</h1>
      {joinedProgram !== undefined ? (
        <>
          <p role="status">{i.partnerJoined(joinedProgram)}</p>
          <p>
            <a href="/app/partner">{i.openPortal}</a>
          </p>
        </>
      ) : !token ? (
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

type InviteDescription =
  | { kind: 'member'; email: string; role: 'owner' | 'member' | 'viewer'; workspaceName: string; inviterName: string | null }
  | { kind: 'partner'; email: string; partnerName: string; programName: string };

/** Who invites, to what (POST /api/invites/lookup, or a partner's); a dead link is said at once. */
function useInviteDescription(kind: 'member' | 'partner', token: string | null, onRefused: (answer: unknown) => void): InviteDescription | undefined {
  const [about, setAbout] = useState<InviteDescription>();
  useEffect(() => {
    if (!token) return;
    if (kind === 'partner')
      void api.POST('/api/partner-invites/lookup', { body: { token } }).then(({ data, error }) => (data ? setAbout({ kind, ...data }) : onRefused(error)));
    else void api.POST('/api/invites/lookup', { body: { token } }).then(({ data, error }) => (data ? setAbout({ kind, ...data }) : onRefused(error)));
  }, [token]);
  return about;
}
