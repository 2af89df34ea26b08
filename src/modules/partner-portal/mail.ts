import { escapeHtml } from '../../http/html-page.js';
import type { MailMessage } from '../mail/service.js';

export interface PayoutDetailsChangedFacts {
  to: string;
  programName: string;
  method: string;
  destination: string;
  at: Date;
}

/**
 * Told to the account and to the old and new payout addresses when a partner's payout details
 * change (operations.md §18): a taken-over account redirecting money is noticed by its owner.
 * Both languages, as the partner's is unknown; only the masked destination is named.
 */
export function payoutDetailsChangedMail(f: PayoutDetailsChangedFacts): MailMessage {
  const when = `${f.at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const en = `Your payout details in the partner program "${f.programName}" were changed on ${when}: ${f.method}, ${f.destination}. If you did not make this change, sign in, change your password and tell the program's owner.`;
  const ar = `تغيّرت بيانات الدفع الخاصة بك في برنامج الشركاء «${f.programName}» في ${when}: ${f.method}، ${f.destination}. إن لم تُجرِ هذا التغيير فسجّل الدخول وغيّر كلمة المرور وأبلغ مالك البرنامج.`;
  const isolate = (s: string) => `<bdi>${escapeHtml(s)}</bdi>`;
  const enHtml = `Your payout details in the partner program “${isolate(f.programName)}” were changed on ${when}: ${isolate(f.method)}, ${isolate(f.destination)}. If you did not make this change, sign in, change your password and tell the program's owner.`;
  const arHtml = `تغيّرت بيانات الدفع الخاصة بك في برنامج الشركاء «${isolate(f.programName)}» في ${when}: ${isolate(f.method)}، ${isolate(f.destination)}. إن لم تُجرِ هذا التغيير فسجّل الدخول وغيّر كلمة المرور وأبلغ مالك البرنامج.`;
  return {
    to: f.to,
    subject: `Your payout details changed · تغيّرت بيانات الدفع`,
    text: [en, '', ar].join('\n'),
    html: `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5"><p lang="en" dir="ltr">${enHtml}</p><hr><p lang="ar" dir="rtl">${arHtml}</p></body></html>`,
    lang: 'en, ar',
  };
}
