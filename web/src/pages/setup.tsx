import { api } from '../api/client.js';
import { useT } from '../i18n/index.js';
import { InputField } from '../ui/field.js';
import { Card, useFormSubmit } from './card-form.js';

/** The first user (operations.md §7): the code comes from the setup URL the server logged. */
export function Setup({ onDone }: { onDone: () => void }) {
  const t = useT();
  const code = new URLSearchParams(location.search).get('code');
  const { error, busy, submit } = useFormSubmit((form) => {
    const field = (name: string) => String(form.get(name));
    return api.POST('/api/setup', {
      body: { code: code!, email: field('email'), name: field('name'), password: field('password'), workspaceName: field('workspaceName') },
    });
  }, onDone);
  return (
    <Card title={t.setupTitle}>
      {!code ? (
        <p role="alert">{t.setupNoCode}</p>
      ) : (
        <form onSubmit={submit} class="stack">
          <p>{t.setupIntro}</p>
          <InputField label={t.name} name="name" autocomplete="name" required />
          <InputField label={t.email} name="email" type="email" autocomplete="username" required />
          <InputField label={t.password} name="password" type="password" autocomplete="new-password" minLength={8} required />
          <InputField label={t.workspaceName} name="workspaceName" required />
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
          <button type="submit" disabled={busy}>
            {t.setupButton}
          </button>
        </form>
      )}
    </Card>
  );
}
