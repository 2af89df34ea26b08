import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { useStrings } from '../i18n/index.js';
import { InputField, NewPasswordField } from '../ui/field.js';
import { Card, useFormSubmit } from './card-form.js';

const en = {
  forgotTitle: 'Reset your password',
  forgotIntro: 'Enter the email address of your account. If it is an account’s, a link to choose a new password is mailed to it.',
  email: 'Email',
  send: 'Mail me a link',
  sent: 'If an account uses this address, a link is on its way. It works once, for one hour. Check your spam folder if it does not arrive.',
  backToSignIn: 'Back to sign-in',
  resetTitle: 'Choose a new password',
  resetIntro: 'Your new password ends every session of your account; then sign in with it.',
  password: 'New password',
  passwordHelp: '8 to 256 characters; common passwords are refused.',
  save: 'Set the new password',
  done: 'Your password is changed and every session of your account has ended. Sign in with the new password.',
  signIn: 'Sign in',
  noToken: 'This page needs the link from the reset mail (it ends in ?token=…).',
};

const ar: typeof en = {
  forgotTitle: 'إعادة تعيين كلمة المرور',
  forgotIntro: 'أدخل البريد الإلكتروني لحسابك. إن كان لحساب فسيُرسل إليه رابط لاختيار كلمة مرور جديدة.',
  email: 'البريد الإلكتروني',
  send: 'أرسل لي رابطًا',
  sent: 'إن كان هذا العنوان لحساب فالرابط في طريقه إليه. يعمل مرة واحدة لمدة ساعة. راجع مجلد الرسائل غير المرغوب فيها إن لم يصل.',
  backToSignIn: 'العودة إلى تسجيل الدخول',
  resetTitle: 'اختر كلمة مرور جديدة',
  resetIntro: 'تُنهي كلمة المرور الجديدة كل جلسات حسابك؛ ثم سجّل الدخول بها.',
  password: 'كلمة المرور الجديدة',
  passwordHelp: 'من 8 إلى 256 حرفًا؛ تُرفض كلمات المرور الشائعة.',
  save: 'تعيين كلمة المرور الجديدة',
  done: 'تغيّرت كلمة المرور وانتهت كل جلسات حسابك. سجّل الدخول بكلمة المرور الجديدة.',
  signIn: 'تسجيل الدخول',
  noToken: 'تحتاج هذه الصفحة إلى الرابط الوارد في رسالة إعادة التعيين (ينتهي بـ ?token=…).',
};

const strings = { en, ar };
const signInLink = (label: string) => <a href="/app">{label}</a>;

/** /app/forgot-password (operations.md §15): the same answer whatever the address. */
export function ForgotPassword() {
  const s = useStrings(strings);
  const [sent, setSent] = useState(false);
  const { error, busy, submit } = useFormSubmit(
    (form) => api.POST('/api/auth/password-reset', { body: { email: String(form.get('email')) } }),
    () => setSent(true),
  );
  return (
    <Card title={s.forgotTitle}>
      {sent ? (
        <p role="status">{s.sent}</p>
      ) : (
        <form onSubmit={submit} class="stack">
          <p>{s.forgotIntro}</p>
          <InputField label={s.email} name="email" type="email" autocomplete="username" required />
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
          <button type="submit" disabled={busy}>
            {s.send}
          </button>
        </form>
      )}
      <p>{signInLink(s.backToSignIn)}</p>
    </Card>
  );
}

/** /app/reset-password?token=… : the mailed (or operator's) single-use link. */
export function ResetPassword() {
  const s = useStrings(strings);
  const token = new URLSearchParams(location.search).get('token');
  const [done, setDone] = useState(false);
  const { error, busy, submit } = useFormSubmit(
    (form) => api.POST('/api/auth/password-reset/confirm', { body: { token: token ?? '', password: String(form.get('password')) } }),
    () => setDone(true),
  );
  if (!token)
    return (
      <Card title={s.resetTitle}>
        <p role="alert">{s.noToken}</p>
      </Card>
    );
  return (
    <Card title={s.resetTitle}>
      {done ? (
        <p role="status">
          {s.done} {signInLink(s.signIn)}
        </p>
      ) : (
        <form onSubmit={submit} class="stack">
          <p>{s.resetIntro}</p>
          <NewPasswordField label={s.password} help={s.passwordHelp} id="reset-password-help" />
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
          <button type="submit" disabled={busy}>
            {s.save}
          </button>
        </form>
      )}
    </Card>
  );
}
