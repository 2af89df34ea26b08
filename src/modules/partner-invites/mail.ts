import { escapeHtml } from '../../http/html-page.js';
import type { MailMessage } from '../mail/service.js';

export interface PartnerInvitationFacts {
  to: string;
  partnerName: string;
  programName: string;
  url: string;
  expiresAt: Date;
}

/**
 * The partner invitation (operations.md §18): it names the program. The partner's language is
 * unknown, so it is written in both, English first, the Arabic part right to left; names are
 * isolated so a name in one script does not reorder the sentence around it.
 */
export function partnerInvitationMail(f: PartnerInvitationFacts): MailMessage {
  const until = f.expiresAt.toISOString().slice(0, 10);
  const text = [
    `Hello ${f.partnerName}, you are invited to the partner program "${f.programName}" on Linktrail: your links, clicks, sales and earnings in one place.`,
    `Accept the invitation (valid until ${until}, usable once):`,
    f.url,
    '',
    `مرحبًا ${f.partnerName}، أنت مدعو إلى برنامج الشركاء «${f.programName}» على Linktrail: روابطك ونقراتك ومبيعاتك وأرباحك في مكان واحد.`,
    `اقبل الدعوة (صالحة حتى ${until}، لمرة واحدة):`,
    f.url,
    '',
    'If you did not expect this invitation, ignore this message. · إن لم تتوقع هذه الدعوة فتجاهل هذه الرسالة.',
  ].join('\n');
  const link = `<a href="${escapeHtml(f.url)}">${escapeHtml(f.url)}</a>`;
  const isolate = (s: string) => `<bdi>${escapeHtml(s)}</bdi>`;
  const html = [
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">',
    `<div lang="en" dir="ltr"><p>Hello ${isolate(f.partnerName)}, you are invited to the partner program “${isolate(f.programName)}” on Linktrail: your links, clicks, sales and earnings in one place.</p>`,
    `<p>Accept the invitation (valid until ${until}, usable once):<br>${link}</p></div><hr>`,
    `<div lang="ar" dir="rtl"><p>مرحبًا ${isolate(f.partnerName)}، أنت مدعو إلى برنامج الشركاء «${isolate(f.programName)}» على Linktrail: روابطك ونقراتك ومبيعاتك وأرباحك في مكان واحد.</p>`,
    `<p>اقبل الدعوة (صالحة حتى ${until}، لمرة واحدة):<br>${link}</p></div>`,
    '</body></html>',
  ].join('');
  return {
    to: f.to,
    subject: `Join the ${f.programName} partner program · انضم إلى برنامج شركاء ${f.programName}`,
    text,
    html,
    lang: 'en, ar',
  };
}
