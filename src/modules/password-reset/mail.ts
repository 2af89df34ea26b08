import { escapeHtml } from '../../http/html-page.js';
import type { MailMessage } from '../mail/service.js';

/** The reset mail: the single-use link, valid one hour, in English and Arabic (the reader's language is unknown). */
export function resetMail(to: string, url: string): MailMessage {
  const link = `<a href="${escapeHtml(url)}">${escapeHtml(url)}</a>`;
  const text = [
    'Someone (we hope you) asked to reset the password of your Linktrail account.',
    'Choose a new password here (valid one hour, usable once):',
    url,
    'If it was not you, ignore this message: your password stays as it is.',
    '',
    'طلب أحدهم (نرجو أن تكون أنت) إعادة تعيين كلمة مرور حسابك في Linktrail.',
    'اختر كلمة مرور جديدة هنا (صالح ساعة واحدة، لمرة واحدة):',
    url,
    'إن لم تكن أنت فتجاهل هذه الرسالة: تبقى كلمة مرورك كما هي.',
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">',
    '<div lang="en" dir="ltr"><p>Someone (we hope you) asked to reset the password of your Linktrail account.</p>',
    `<p>Choose a new password here (valid one hour, usable once):<br>${link}</p><p>If it was not you, ignore this message: your password stays as it is.</p></div><hr>`,
    '<div lang="ar" dir="rtl"><p>طلب أحدهم (نرجو أن تكون أنت) إعادة تعيين كلمة مرور حسابك في Linktrail.</p>',
    `<p>اختر كلمة مرور جديدة هنا (صالح ساعة واحدة، لمرة واحدة):<br>${link}</p><p>إن لم تكن أنت فتجاهل هذه الرسالة: تبقى كلمة مرورك كما هي.</p></div>`,
    '</body></html>',
  ].join('');
  return { to, subject: 'Reset your Linktrail password · إعادة تعيين كلمة مرور Linktrail', text, html, lang: 'en, ar' };
}
