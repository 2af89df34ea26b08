import { useContext, useState } from 'preact/hooks';
import { api, errorText } from '../api/client.js';
import { LangContext, useT } from '../i18n/index.js';
import { returnPath } from '../router.js';
import { LangSwitch } from './lang-switch.js';

export function SignIn({ onDone }: { onDone: () => void }) {
  const t = useT();
  const { lang } = useContext(LangContext);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    try {
      const { error: failed } = await api.POST('/api/auth/login', { body: { email: String(form.get('email')), password: String(form.get('password')) } });
      if (failed) setError(errorText(failed, lang));
      else onDone();
    } catch (err) {
      setError(errorText(err, lang));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="card">
      <LangSwitch />
      <h1>{t.signInTitle}</h1>
      {/* Sent here by the authorization server: after signing in, back to the app's request. */}
      {returnPath()?.startsWith('/oauth/authorize?') && <p>{t.signInForApp}</p>}
      <form onSubmit={submit} class="stack">
        <label class="field">
          <span>{t.email}</span>
          <input name="email" type="email" autocomplete="username" required />
        </label>
        <label class="field">
          <span>{t.password}</span>
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        {error && <p role="alert" class="error">{error}</p>}
        <button type="submit" disabled={busy}>
          {t.signIn}
        </button>
      </form>
    </main>
  );
}
