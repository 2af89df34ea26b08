import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { ErrorLine } from '../../ui/states.js';
import { useAction } from '../../ui/action.js';

const en = {
  title: 'Single sign-on',
  intro:
    'If your workspace’s identity provider refused to sign you in because this account already existed, link it here: you go to the provider, and afterwards it signs you into this account.',
  link: 'Link single sign-on of this workspace',
  linked: 'Single sign-on is linked: next time, sign in with SSO.',
};
const ar: typeof en = {
  title: 'الدخول الموحّد',
  intro: 'إذا رفض مزوّد الهوية في مساحة عملك تسجيل دخولك لأن هذا الحساب موجود مسبقًا، فاربطه هنا: تنتقل إلى المزوّد، وبعدها يسجّل دخولك إلى هذا الحساب.',
  link: 'ربط الدخول الموحّد لمساحة العمل هذه',
  linked: 'تم ربط الدخول الموحّد: في المرة القادمة سجّل الدخول عبر SSO.',
};

/** Account → Single sign-on (operations.md §15): link the workspace's provider to this account (POST /api/me/sso/link). */
export function SsoLink({ workspaceId }: { workspaceId: string }) {
  const w = useStrings({ en, ar });
  const { busy, error, run } = useAction();
  const justLinked = new URLSearchParams(location.search).get('sso') === 'linked';
  const link = async () => {
    const started = await run(() => api.POST('/api/me/sso/link', { body: { workspaceId } }));
    if (started) location.assign(started.authorizationUrl);
  };
  return (
    <section aria-labelledby="sso-link-heading" class="stack-tight">
      <h2 id="sso-link-heading">{w.title}</h2>
      <p>{w.intro}</p>
      {justLinked && <p role="status">{w.linked}</p>}
      <div class="actions">
        <button type="button" disabled={busy} onClick={link}>
          {w.link}
        </button>
      </div>
      <ErrorLine error={error} />
    </section>
  );
}
