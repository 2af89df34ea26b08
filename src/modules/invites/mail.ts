import { escapeHtml } from '../../http/html-page.js';
import type { MailMessage } from '../mail/service.js';
import type { Role } from '../users/service.js';

export interface InvitationFacts {
  to: string;
  workspaceName: string;
  inviterName: string;
  role: Role;
  url: string;
  expiresAt: Date;
}

const ROLE_NAMES: Record<Role, { en: string; ar: string }> = {
  owner: { en: 'an owner', ar: 'مالكًا' },
  member: { en: 'a member', ar: 'عضوًا' },
  viewer: { en: 'a viewer', ar: 'مشاهدًا' },
};

/**
 * The invitation mail (operations.md §15): it names the workspace, the inviter and the role. The
 * invitee's language is unknown, so it is written in both, English first, the Arabic part right
 * to left; names are the user's own words, isolated so a name in one script does not reorder
 * the sentence around it.
 */
export function invitationMail(f: InvitationFacts): MailMessage {
  const role = ROLE_NAMES[f.role];
  const until = f.expiresAt.toISOString().slice(0, 10);
  const en = `${f.inviterName} invited you to join the workspace "${f.workspaceName}" on Linktrail as ${role.en}.`;
  const ar = `دعاك ${f.inviterName} للانضمام إلى مساحة العمل «${f.workspaceName}» على Linktrail ${role.ar}.`;
  const text = [
    en,
    `Accept the invitation (valid until ${until}, usable once):`,
    f.url,
    '',
    ar,
    `اقبل الدعوة (صالحة حتى ${until}، لمرة واحدة):`,
    f.url,
    '',
    'If you did not expect this invitation, ignore this message. · إن لم تتوقع هذه الدعوة فتجاهل هذه الرسالة.',
  ].join('\n');
  const link = `<a href="${escapeHtml(f.url)}">${escapeHtml(f.url)}</a>`;
  const isolate = (s: string) => `<bdi>${escapeHtml(s)}</bdi>`;
  const html = [
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">',
    `<div lang="en" dir="ltr"><p>${isolate(f.inviterName)} invited you to join the workspace “${isolate(f.workspaceName)}” on Linktrail as ${role.en}.</p>`,
    `<p>Accept the invitation (valid until ${until}, usable once):<br>${link}</p></div><hr>`,
    `<div lang="ar" dir="rtl"><p>دعاك ${isolate(f.inviterName)} للانضمام إلى مساحة العمل «${isolate(f.workspaceName)}» على Linktrail ${role.ar}.</p>`,
    `<p>اقبل الدعوة (صالحة حتى ${until}، لمرة واحدة):<br>${link}</p></div>`,
    '</body></html>',
  ].join('');
  return { to: f.to, subject: `Join ${f.workspaceName} on Linktrail · انضم إلى ${f.workspaceName} على Linktrail`, text, html, lang: 'en, ar' };
}
