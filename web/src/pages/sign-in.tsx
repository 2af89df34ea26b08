import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { useT } from '../i18n/index.js';
import { returnPath } from '../router.js';
import { InputField } from '../ui/field.js';
import { Card, useFormSubmit } from './card-form.js';

export function SignIn({ onDone }: { onDone: () => void }) {
  const t = useT();
  const firstRun = useFirstRun();
  // With two-factor on, the password opens a second step (operations.md §15).
  const [secondStep, setSecondStep] = useState(false);
  const { error, busy, submit } = useFormSubmit(
    (form) => api.POST('/api/auth/login', { body: { email: String(form.get('email')), password: String(form.get('password')) } }),
    (answer) => (answer && typeof answer === 'object' && 'mfaRequired' in answer ? setSecondStep(true) : onDone()),
  );
  if (secondStep) return <SecondStep onDone={onDone} onRestart={() => setSecondStep(false)} />;
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
        {error && <p role="alert" class="error">{error}</p>}
        <button type="submit" disabled={busy}>
          {t.signIn}
        </button>
      </form>
      <p>
        <a href="/app/forgot-password">{t.forgotPassword}</a>
      </p>
      <SsoSignIn />
    </Card>
  );
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
    void api.GET('/api/setup').then(({ data }) => setNeeded(data?.needed === true), () => undefined);
  }, []);
  return needed;
}

/** The second step: a code of the authenticator app or a recovery code (POST /api/auth/mfa). */
function SecondStep({ onDone, onRestart }: { onDone: () => void; onRestart: () => void }) {
  const t = useT();
  const { error, busy, submit } = useFormSubmit((form) => api.POST('/api/auth/mfa', { body: { code: String(form.get('code')) } }), onDone);
  return (
    <Card title={t.signInTitle}>
      <form onSubmit={submit} class="stack">
        <p>{t.mfaIntro}</p>
        <InputField label={t.mfaCode} name="code" autocomplete="one-time-code" required maxLength={64} />
        {error && <p role="alert" class="error">{error}</p>}
        <button type="submit" disabled={busy}>
          {t.mfaVerify}
        </button>
        <button type="button" onClick={onRestart}>
          {t.mfaRestart}
        </button>
      </form>
    </Card>
  );
}
