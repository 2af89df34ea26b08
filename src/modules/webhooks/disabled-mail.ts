import type { Conn } from '../../db/connect.js';
import { escapeHtml } from '../../http/html-page.js';
import { queueMail, type Mailer, type MailMessage } from '../mail/service.js';
import { listMembers } from '../users/service.js';
import { requireWorkspace } from '../workspaces/service.js';
import type { DisabledEndpoint } from './store-delivery.js';

export interface DisabledEndpointFacts {
  to: string;
  workspaceName: string;
  endpoint: DisabledEndpoint;
  /** The endpoint's page in the dashboard. */
  pageUrl: string;
}

const WHY = {
  gone: { en: 'it answered 410 Gone', ar: 'أجاب بالرمز 410 Gone' },
  failing: { en: 'every delivery to it has failed for 5 days', ar: 'فشل كل إرسال إليه طوال 5 أيام' },
} as const;

/** The mail to an owner (operations.md §11, §15): which endpoint, why, and where to turn it back on; English and Arabic. */
export function disabledEndpointMail(f: DisabledEndpointFacts): MailMessage {
  const why = WHY[f.endpoint.reason];
  const en = `Linktrail stopped sending events of the workspace "${f.workspaceName}" to ${f.endpoint.url}: ${why.en}.`;
  const ar = `أوقف Linktrail إرسال أحداث مساحة العمل «${f.workspaceName}» إلى ${f.endpoint.url}: ${why.ar}.`;
  const text = [
    en,
    'Fix the receiver, then enable the endpoint again (events of the last 30 days can be sent again from its page):',
    f.pageUrl,
    '',
    ar,
    'أصلح المستقبِل ثم فعّل نقطة الاستقبال من جديد (يمكن إعادة إرسال أحداث آخر 30 يومًا من صفحتها):',
    f.pageUrl,
  ].join('\n');
  const isolate = (s: string) => `<bdi>${escapeHtml(s)}</bdi>`;
  const link = `<a href="${escapeHtml(f.pageUrl)}">${escapeHtml(f.pageUrl)}</a>`;
  const html = [
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">',
    `<div lang="en" dir="ltr"><p>Linktrail stopped sending events of the workspace “${isolate(f.workspaceName)}” to ${isolate(f.endpoint.url)}: ${why.en}.</p>`,
    `<p>Fix the receiver, then enable the endpoint again (events of the last 30 days can be sent again from its page):<br>${link}</p></div><hr>`,
    `<div lang="ar" dir="rtl"><p>أوقف Linktrail إرسال أحداث مساحة العمل «${isolate(f.workspaceName)}» إلى ${isolate(f.endpoint.url)}: ${why.ar}.</p>`,
    `<p>أصلح المستقبِل ثم فعّل نقطة الاستقبال من جديد (يمكن إعادة إرسال أحداث آخر 30 يومًا من صفحتها):<br>${link}</p></div>`,
    '</body></html>',
  ].join('');
  const subject = `Webhook endpoint disabled in ${f.workspaceName} · تعطيل نقطة استقبال في ${f.workspaceName}`;
  return { to: f.to, subject, text, html, lang: 'en, ar' };
}

/** Queues the mail to each owner of the endpoint's workspace, in `tx` (the transaction that disabled it). */
export async function mailOwnersOfDisabledEndpoint(tx: Conn, o: { mailer: Mailer; baseUrl: string; now: Date }, endpoint: DisabledEndpoint): Promise<void> {
  const ctx = { db: tx, now: o.now };
  const workspace = await requireWorkspace({ ctx, input: { id: endpoint.workspaceId } });
  const owners = (await listMembers({ ctx, input: { workspaceId: workspace.id } })).filter((m) => m.role === 'owner');
  const pageUrl = `${o.baseUrl.replace(/\/+$/, '')}/app/settings/webhooks/${endpoint.id}?workspace=${workspace.id}`;
  for (const owner of owners)
    await queueMail(tx, o.mailer, 'webhook-disabled', disabledEndpointMail({ to: owner.email, workspaceName: workspace.name, endpoint, pageUrl }));
}
