import { browserSupportsWebAuthn, startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { useContext, useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api/client.js';
import { LangContext, useT } from '../i18n/index.js';
import { returnPath } from '../router.js';
import { InputField } from '../ui/field.js';
import { Card, useFormSubmit } from './card-form.js';

export function SignIn({ onDone }: { onDone: () => void }) {
  const t = useT();
  const firstRun = useFirstRun();
  // With two-factor on, the password opens a second step (operations.md §15), with the methods it offers.
  const [secondStep, setSecondStep] = useState<string[]>();
  const { error, busy, submit } = useFormSubmit(
    (form) => api.POST('/api/auth/login', { body: { email: String(form.get('email')), password: String(form.get('password')) } }),
    (answer) => (answer && typeof answer === 'object' && 'mfaRequired' in answer ? setSecondStep(answer.methods) : onDone()),
  );
  const passkey = usePasskeySignIn(false, onDone);
  if (secondStep) return <SecondStep methods={secondStep} onDone={onDone} onRestart={() => setSecondStep(undefined)} />;
  return (
    <Card title={t.signInTitle}>
      {/* Sent here by the authorization server: after signing in, back to the app's request. */}
      {firstRun && (
        <p role="status">
          {t.signInFirstRun} <code dir="ltr">/app/setup?code=…</code>
        </p>
      )}
      {returnPath()?.startsWith('/oauth/authorize?') && <p>{t.signInForApp}</p>}
      <form onSubmit={submit} class="stack">
        <InputField label={t.email} name="email" type="email" autocomplete="username" required />
        <InputField label={t.password} name="password" type="password" autocomplete="current-password" required />
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {t.signIn}
        </button>
      </form>
      <p>
        <a href="/app/forgot-password">{t.forgotPassword}</a>
      </p>
      {passkey.supported && (
        <div class="stack">
          <p>{t.passkeySignIn}</p>
          <button type="button" onClick={passkey.start} disabled={passkey.busy}>
            {t.passkeyUse}
          </button>
          {passkey.error && (
            <p role="alert" class="error">
              {passkey.error}
            </p>
          )}
        </div>
      )}
      <SsoSignIn />
    </Card>
  );
}

/**
 * A passkey sign-in (operations.md §15): options from the server, the browser's own dialog
 * (startAuthentication), the server's check; alone, or as the second step of a password sign-in.
 */
function usePasskeySignIn(secondFactor: boolean, onDone: () => void) {
  const t = useT();
  const { lang } = useContext(LangContext);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const start = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const options = await api.POST('/api/auth/passkey/options', { body: secondFactor ? { secondFactor: true } : {} });
      if (options.error) return setError(errorText(options.error, lang));
      let response;
      try {
        response = await startAuthentication({ optionsJSON: options.data as unknown as PublicKeyCredentialRequestOptionsJSON });
      } catch {
        // Closed or timed out: nothing was sent.
        return setError(t.passkeyCancelled);
      }
      const answer = await api.POST('/api/auth/passkey', { body: { response: response as never } });
      if (answer.error) setError(errorText(answer.error, lang));
      else onDone();
    } catch (err) {
      setError(errorText(err, lang));
    } finally {
      setBusy(false);
    }
  };
  return { supported: browserSupportsWebAuthn(), error, busy, start };
}

/**
 * "Sign in with SSO" (operations.md §15): the work e-mail names the workspace by its verified
 * domain. The browser goes to GET /api/auth/sso, which sends it on to the provider.
 */
function SsoSignIn() {
  const t = useT();
  // A navigation, not a form submission: the dashboard's CSP (form-action 'self') would stop a
  // form at the redirect to the provider.
  const go = (e: Event) => {
    e.preventDefault();
    const email = String(new FormData(e.currentTarget as HTMLFormElement).get('email') ?? '').trim();
    location.assign(`/api/auth/sso?email=${encodeURIComponent(email)}`);
  };
  return (
    <section aria-labelledby="sso-title" class="stack">
      <h2 id="sso-title">{t.ssoSignIn}</h2>
      <form onSubmit={go} class="stack">
        <InputField label={t.ssoEmail} name="email" type="email" autocomplete="email" required />
        <button type="submit">{t.ssoContinue}</button>
      </form>
    </section>
  );
}

/** True while nobody has an account (operations.md §14): the page then says where the setup link is. */
function useFirstRun(): boolean {
  const [needed, setNeeded] = useState(false);
  useEffect(() => {
    // Only a hint: if the question fails, the page is the plain sign-in.
    void api.GET('/api/setup').then(
      ({ data }) => setNeeded(data?.needed === true),
      () => undefined,
    );
  }, []);
  return needed;
}

/** The second step: a code of the authenticator app or a recovery code (POST /api/auth/mfa), or a passkey. */
function SecondStep({ methods, onDone, onRestart }: { methods: string[]; onDone: () => void; onRestart: () => void }) {
  const t = useT();
  const { error, busy, submit } = useFormSubmit((form) => api.POST('/api/auth/mfa', { body: { code: String(form.get('code')) } }), onDone);
  const passkey = usePasskeySignIn(true, onDone);
  const withCode = methods.includes('totp');
  const withPasskey = methods.includes('passkey') && passkey.supported;
  return (
    <Card title={t.signInTitle}>
      {withCode && (
        <form onSubmit={submit} class="stack">
          <p>{t.mfaIntro}</p>
          <InputField label={t.mfaCode} name="code" autocomplete="one-time-code" required maxLength={64} />
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
          <button type="submit" disabled={busy}>
            {t.mfaVerify}
          </button>
        </form>
      )}
      {withPasskey && (
        <div class="stack">
          <p>{withCode ? t.passkeyOr : t.passkeyIntro}</p>
          <button type="button" onClick={passkey.start} disabled={passkey.busy}>
            {t.passkeyUse}
          </button>
          {passkey.error && (
            <p role="alert" class="error">
              {passkey.error}
            </p>
          )}
        </div>
      )}
      <div class="stack">
        <button type="button" onClick={onRestart}>
          {t.mfaRestart}
        </button>
      </div>
    </Card>
  );
}
