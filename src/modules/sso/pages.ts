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
