/**
 * The mails of applications (operations.md §18 "Applications"): to the applicant (already
 * applied, not accepted) and the owners' hourly digest. Applicants write what they like, and
 * anyone can apply under anyone's address: their text reaches a mailbox only as inert text
 * (inertText: escaped in HTML, no URL or address a mail client would make a link of, cut short),
 * and the mails to an applicant carry none of it.
 */
import { escapeHtml } from '../../http/html-page.js';
import type { MailMessage } from '../mail/service.js';
import type { ApplicationRow } from './store.js';

/** Bidirectional controls and other control characters, which could reorder or hide text around them. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this drops
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Applicant text as plain, inert text, at most `max` characters: control characters dropped,
 * every scheme separator written `[:]//` and every dot between letters or digits `[.]`, so no mail
 * client turns a URL, a host or an e-mail address in it into a link (the owner reads
 * `https[:]//example[.]com`).
 */
export function inertText(text: string, max: number): string {
  const clean = text
    .replace(CONTROLS, ' ')
    .replace(/[ \t]+/g, ' ')
    .trim();
  const chars = [...clean];
  const cut = chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : clean;
  return cut.replace(/:\s*\/\//g, '[:]//').replace(/([\p{L}\p{N}_-])[.．。｡](?=[\p{L}\p{N}])/gu, '$1[.]');
}

const isolate = (s: string) => `<bdi>${escapeHtml(s)}</bdi>`;
const page = (en: string, ar: string) =>
  [
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">',
    `<div lang="en" dir="ltr">${en}</div><hr><div lang="ar" dir="rtl">${ar}</div>`,
    '</body></html>',
  ].join('');

/** To an address that applied again, or is already a partner: nothing changed. */
export function alreadyAppliedMail(f: { to: string; programName: string }): MailMessage {
  const en = `We already have an application from this address to the partner program "${f.programName}" (or it is already one of its partners): nothing was changed. Once the program approves it, an invitation comes by e-mail.`;
  const ar = `لدينا بالفعل طلب من هذا العنوان للانضمام إلى برنامج الشركاء «${f.programName}» (أو إنه أحد شركائه بالفعل): لم يتغيّر شيء. حين يقبله البرنامج تصلك دعوة بالبريد الإلكتروني.`;
  const note = 'If you did not apply, ignore this message. · إن لم تتقدّم بطلب فتجاهل هذه الرسالة.';
  return {
    to: f.to,
    subject: `Your application to ${f.programName} · طلبك إلى ${f.programName}`,
    text: [en, '', ar, '', note].join('\n'),
    html: page(
      `<p>We already have an application from this address to the partner program “${isolate(f.programName)}” (or it is already one of its partners): nothing was changed. Once the program approves it, an invitation comes by e-mail.</p><p>If you did not apply, ignore this message.</p>`,
      `<p>لدينا بالفعل طلب من هذا العنوان للانضمام إلى برنامج الشركاء «${isolate(f.programName)}» (أو إنه أحد شركائه بالفعل): لم يتغيّر شيء. حين يقبله البرنامج تصلك دعوة بالبريد الإلكتروني.</p><p>إن لم تتقدّم بطلب فتجاهل هذه الرسالة.</p>`,
    ),
    lang: 'en, ar',
  };
}

/** To an applicant the owner rejected: a short notice. */
export function rejectedMail(f: { to: string; programName: string }): MailMessage {
  const en = `Thank you for applying to the partner program "${f.programName}". Your application was not accepted.`;
  const ar = `شكرًا لتقدّمك إلى برنامج الشركاء «${f.programName}». لم يُقبل طلبك.`;
  return {
    to: f.to,
    subject: `Your application to ${f.programName} · طلبك إلى ${f.programName}`,
    text: [en, '', ar].join('\n'),
    html: page(
      `<p>Thank you for applying to the partner program “${isolate(f.programName)}”. Your application was not accepted.</p>`,
      `<p>شكرًا لتقدّمك إلى برنامج الشركاء «${isolate(f.programName)}». لم يُقبل طلبك.</p>`,
    ),
    lang: 'en, ar',
  };
}

/** The digest names at most this many applications, each cut short; the rest are a count. */
export const DIGEST_LISTED = 20;
const NAME_CHARS = 100;
const EMAIL_CHARS = 190;
const WEBSITE_CHARS = 200;
const PROMOTION_CHARS = 400;

interface DigestFacts {
  to: string;
  programName: string;
  applications: ApplicationRow[];
  /** The dashboard's Applications page (the one link of the mail). */
  pageUrl: string;
}

/** One application's lines, in inert text. */
function linesOf(a: ApplicationRow, label: { website: string; promotion: string }): string[] {
  return [
    `- ${inertText(a.name, NAME_CHARS)} · ${inertText(a.email ?? '', EMAIL_CHARS)}`,
    ...(a.website ? [`  ${label.website}: ${inertText(a.website, WEBSITE_CHARS)}`] : []),
    ...(a.promotion ? [`  ${label.promotion}: ${inertText(a.promotion, PROMOTION_CHARS)}`] : []),
  ];
}

/** The owners' digest: how many applied since the last one, the first 20 of them, and where to decide. */
export function ownerDigestMail(f: DigestFacts): MailMessage {
  const n = f.applications.length;
  const listed = f.applications.slice(0, DIGEST_LISTED);
  const more = n - listed.length;
  const en = { website: 'Website', promotion: 'Promotion' };
  const ar = { website: 'الموقع', promotion: 'الترويج' };
  const headEn = `${n} new application${n === 1 ? '' : 's'} to the partner program "${f.programName}". Approve or reject them on the Applications page:`;
  const headAr = `${n} طلب جديد للانضمام إلى برنامج الشركاء «${f.programName}». اقبلها أو ارفضها في صفحة الطلبات:`;
  const moreEn = more > 0 ? [`…and ${more} more.`] : [];
  const moreAr = more > 0 ? [`…و${more} غيرها.`] : [];
  const text = [
    headEn,
    f.pageUrl,
    '',
    ...listed.flatMap((a) => linesOf(a, en)),
    ...moreEn,
    '',
    headAr,
    f.pageUrl,
    '',
    ...listed.flatMap((a) => linesOf(a, ar)),
    ...moreAr,
  ].join('\n');
  const link = `<a href="${escapeHtml(f.pageUrl)}">${escapeHtml(f.pageUrl)}</a>`;
  // Applicant text only as escaped, inert text in a block of its own: never markup, never a link.
  const block = (label: typeof en) => `<pre style="white-space:pre-wrap;font:inherit">${escapeHtml(listed.flatMap((a) => linesOf(a, label)).join('\n'))}</pre>`;
  const html = page(
    `<p>${n} new application${n === 1 ? '' : 's'} to the partner program “${isolate(f.programName)}”. Approve or reject them on the Applications page:<br>${link}</p>${block(en)}${moreEn.map((m) => `<p>${m}</p>`).join('')}`,
    `<p>${n} طلب جديد للانضمام إلى برنامج الشركاء «${isolate(f.programName)}». اقبلها أو ارفضها في صفحة الطلبات:<br>${link}</p>${block(ar)}${moreAr.map((m) => `<p>${m}</p>`).join('')}`,
  );
  return {
    to: f.to,
    subject: `New applications to ${f.programName} · طلبات جديدة إلى ${f.programName}`,
    text,
    html,
    lang: 'en, ar',
  };
}
