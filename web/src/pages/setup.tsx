import { useContext, useState } from 'preact/hooks';
import { api, errorText } from '../api/client.js';
import { LangContext, useT } from '../i18n/index.js';
import { LangSwitch } from './lang-switch.js';

/** The first user (operations.md §7): the code comes from the setup URL the server logged. */
export function Setup({ onDone }: { onDone: () => void }) {
  const t = useT();
  const { lang } = useContext(LangContext);
  const code = new URLSearchParams(location.search).get('code');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!code) return;
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const field = (name: string) => String(form.get(name));
    setBusy(true);
    setError(undefined);
    try {
      const { error: failed } = await api.POST('/api/setup', {
        body: { code, email: field('email'), name: field('name'), password: field('password'), workspaceName: field('workspaceName') },
      });
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
      <h1>{t.setupTitle}</h1>
      {!code ? (
        <p role="alert">{t.setupNoCode}</p>
      ) : (
        <form onSubmit={submit} class="stack">
          <p>{t.setupIntro}</p>
          <label class="field">
            <span>{t.name}</span>
            <input name="name" autocomplete="name" required />
          </label>
          <label class="field">
            <span>{t.email}</span>
            <input name="email" type="email" autocomplete="username" required />
          </label>
          <label class="field">
            <span>{t.password}</span>
            <input name="password" type="password" autocomplete="new-password" minLength={8} required />
          </label>
          <label class="field">
            <span>{t.workspaceName}</span>
            <input name="workspaceName" required />
          </label>
          {error && <p role="alert" class="error">{error}</p>}
          <button type="submit" disabled={busy}>
            {t.setupButton}
          </button>
        </form>
      )}
    </main>
  );
}
