import type { AppError } from '../../core/errors.js';
import { escapeHtml, htmlPage } from '../../http/html-page.js';
import { translate } from '../../i18n/messages.js';

/**
 * The page a refused or failed single sign-on shows (a browser navigation, so never JSON): what
 * happened in English and Arabic, and the way back to the sign-in page.
 */
export function ssoErrorPage(err: AppError, signInPath: string): string {
  const text = translate(err.code, err.params);
  const [title, titleAr] = err.code === 'sso_cancelled' ? ['Sign-in cancelled', 'أُلغي تسجيل الدخول'] : ['Single sign-on failed', 'تعذّر الدخول الموحّد'];
  const body = `<h1>${title}</h1><p class="error" id="sso-error" data-code="${escapeHtml(err.code)}">${escapeHtml(text.en)}</p>
<div lang="ar" dir="rtl"><h1>${titleAr}</h1><p class="error">${escapeHtml(text.ar)}</p></div>
<p><a href="${escapeHtml(signInPath)}">Back to sign-in</a> · <a href="${escapeHtml(signInPath)}" lang="ar" dir="rtl">العودة إلى تسجيل الدخول</a></p>`;
  return htmlPage({ title: `${title} · ${titleAr}`, body });
}

/**
 * Asked before a sign-in that another site, an e-mailed link or a typed URL started (login CSRF:
 * a page elsewhere must not sign this browser in as the account of its choosing). It names the
 * workspace and its provider; only its button, a form posted from this origin, goes on.
 */
export function ssoConfirmPage(o: {
  workspaceName: string;
  providerHost: string;
  field: 'workspace' | 'email';
  value: string;
  action: string;
  signInPath: string;
}): string {
  const name = escapeHtml(o.workspaceName);
  const host = escapeHtml(o.providerHost);
  const button = (text: string) => `<button type="submit" form="sso-continue">${text}</button>`;
  const body = `<form id="sso-continue" method="post" action="${escapeHtml(o.action)}"><input type="hidden" name="${o.field}" value="${escapeHtml(o.value)}"></form>
<h1>Continue to single sign-on?</h1>
<p>You are about to sign in with the single sign-on of the workspace <strong><bdi>${name}</bdi></strong>, whose identity provider is <strong><bdi>${host}</bdi></strong>.</p>
<p>Continue only if you started this sign-in yourself: this browser will be signed in as whichever account that provider signs in. If another site sent you here, close this page.</p>
${button(`Continue to sign in with <bdi>${name}</bdi>’s provider`)}
<div lang="ar" dir="rtl" style="margin-top:2rem"><h1>متابعة الدخول الموحّد؟</h1>
<p>أنت على وشك تسجيل الدخول عبر الدخول الموحّد لمساحة العمل <strong><bdi>${name}</bdi></strong>، ومزوّد الهوية لديها هو <strong><bdi>${host}</bdi></strong>.</p>
<p>تابِع فقط إن كنت أنت من بدأ تسجيل الدخول هذا: سيُسجَّل دخول هذا المتصفح بالحساب الذي يسجّل ذلك المزوّد دخوله أيًّا كان. إن أرسلك موقع آخر إلى هنا فأغلق هذه الصفحة.</p>
${button(`متابعة تسجيل الدخول عبر مزوّد <bdi>${name}</bdi>`)}</div>
<p><a href="${escapeHtml(o.signInPath)}">Cancel</a> · <a href="${escapeHtml(o.signInPath)}" lang="ar" dir="rtl">إلغاء</a></p>`;
  return htmlPage({ title: 'Continue to single sign-on? · متابعة الدخول الموحّد؟', body });
}
