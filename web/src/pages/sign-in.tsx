import { api } from '../api/client.js';
import { useT } from '../i18n/index.js';
import { returnPath } from '../router.js';
import { InputField } from '../ui/field.js';
import { Card, useFormSubmit } from './card-form.js';

export function SignIn({ onDone }: { onDone: () => void }) {
  const t = useT();
  const { error, busy, submit } = useFormSubmit((form) => api.POST('/api/auth/login', { body: { email: String(form.get('email')), password: String(form.get('password')) } }), onDone);
  return (
    <Card title={t.signInTitle}>
      {/* Sent here by the authorization server: after signing in, back to the app's request. */}
      {returnPath()?.startsWith('/oauth/authorize?') && <p>{t.signInForApp}</p>}
      <form onSubmit={submit} class="stack">
        <InputField label={t.email} name="email" type="email" autocomplete="username" required />
        <InputField label={t.password} name="password" type="password" autocomplete="current-password" required />
        {error && <p role="alert" class="error">{error}</p>}
        <button type="submit" disabled={busy}>
          {t.signIn}
        </button>
      </form>
    </Card>
  );
}
