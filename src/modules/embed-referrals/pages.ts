/**
 * The embedded referral page (operations.md §18): served by the server, framed by the
 * workspace's product. Its one script (under a per-answer nonce, no inline handlers) reads the
 * token from the page's URL and the figures from GET /api/embed/referrals; nothing needs a cookie.
 * Strings in English and Arabic (right to left, the same sheet with logical properties).
 */
import { escapeHtml } from '../../http/html-page.js';

export type EmbedLang = 'en' | 'ar';

const STRINGS = {
  en: {
    title: 'Your referrals',
    hello: 'Share your link: every customer it brings earns you a commission.',
    yourLink: 'Your link',
    copy: 'Copy',
    copied: 'Copied',
    copyFailed: 'Select the link and copy it',
    preparing: 'Your link is being prepared: look again in a minute.',
    clicks: 'Clicks',
    leads: 'Leads',
    sales: 'Sales',
    earnings: 'Earnings',
    paid: 'paid',
    commissions: 'Commissions',
    noCommissions: 'Commissions appear here once a customer you referred signs up or buys.',
    date: 'Date',
    type: 'For',
    customer: 'Customer',
    amount: 'Amount',
    status: 'Status',
    payouts: 'Payouts',
    payoutsInvite: 'To be paid, give your payout details in the partner portal. We will mail an invitation to {email}.',
    payoutsButton: 'Set up payouts',
    payoutsSent: 'Invitation sent to {email}: open it to set up your payouts.',
    payoutsPortal: 'Give or change your payout details in the partner portal.',
    payoutsPortalLink: 'Open the partner portal',
    failed: 'The figures could not be loaded: reload the page to try again.',
    allTime: 'All time',
    types: { click: 'Clicks', lead: 'Sign-up', sale: 'Sale', custom: 'Adjustment' },
    statuses: { pending: 'Pending', held: 'Under review', payable: 'Payable', paid: 'Paid', reversed: 'Reversed' },
  },
  ar: {
    title: 'إحالاتك',
    hello: 'شارك رابطك: كل عميل يأتي عن طريقه يكسبك عمولة.',
    yourLink: 'رابطك',
    copy: 'نسخ',
    copied: 'تم النسخ',
    copyFailed: 'حدّد الرابط وانسخه',
    preparing: 'يجري تجهيز رابطك: عُد بعد دقيقة.',
    clicks: 'النقرات',
    leads: 'العملاء المحتملون',
    sales: 'المبيعات',
    earnings: 'الأرباح',
    paid: 'مدفوعة',
    commissions: 'العمولات',
    noCommissions: 'تظهر العمولات هنا حين يسجّل أو يشتري عميلٌ أحلتَه.',
    date: 'التاريخ',
    type: 'عن',
    customer: 'العميل',
    amount: 'المبلغ',
    status: 'الحالة',
    payouts: 'الدفعات',
    payoutsInvite: 'لتتلقى أرباحك، أدخل بيانات الدفع في بوابة الشركاء. سنرسل دعوة إلى {email}.',
    payoutsButton: 'إعداد الدفعات',
    payoutsSent: 'أُرسلت الدعوة إلى {email}: افتحها لإعداد دفعاتك.',
    payoutsPortal: 'أدخل بيانات الدفع أو غيّرها في بوابة الشركاء.',
    payoutsPortalLink: 'افتح بوابة الشركاء',
    failed: 'تعذّر تحميل الأرقام: أعد تحميل الصفحة للمحاولة مجددًا.',
    allTime: 'منذ البداية',
    types: { click: 'نقرات', lead: 'تسجيل', sale: 'بيع', custom: 'تعديل' },
    statuses: { pending: 'قيد الانتظار', held: 'قيد المراجعة', payable: 'مستحقة', paid: 'مدفوعة', reversed: 'ملغاة' },
  },
} as const;

const STYLE = `
:root{--bg:#fff;--fg:#1b1f24;--muted:#5b6470;--line:#dfe3e8;--card:#f6f7f9;--accent:#1f5eff;--accent-fg:#fff;--ok:#1a7f37;--warn:#9a6700;--bad:#b3261e;
--s1:4px;--s2:8px;--s3:12px;--s4:16px;--s6:24px;--r:10px;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#101317;--fg:#e8eaed;--muted:#a3acb8;--line:#2d333b;--card:#1b1f24;--accent:#7aa2ff;--accent-fg:#0b0d10;--ok:#57d37a;--warn:#e3b341;--bad:#ff8a80}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans Arabic",Tahoma,sans-serif}
main{max-width:960px;margin-inline:auto;padding:var(--s4)}
h1{font-size:1.3rem;margin:0 0 var(--s1)}h2{font-size:1rem;margin:0 0 var(--s2)}
p{margin:0}.muted{color:var(--muted)}
section{margin-block-start:var(--s6)}
.link{display:flex;gap:var(--s2);align-items:stretch}
.link input{flex:1;min-width:0;font:inherit;padding:var(--s2) var(--s3);border:1px solid var(--line);border-radius:var(--r);background:var(--card);color:inherit;direction:ltr;text-align:start}
button,.button{font:inherit;font-weight:600;padding:var(--s2) var(--s4);border:0;border-radius:var(--r);background:var(--accent);color:var(--accent-fg);cursor:pointer;text-decoration:none;display:inline-block}
button:disabled{opacity:.6;cursor:default}
button:focus-visible,input:focus-visible,a:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.figures{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:var(--s3)}
.figure{background:var(--card);border:1px solid var(--line);border-radius:var(--r);padding:var(--s3) var(--s4)}
.figure .label{display:block;color:var(--muted);font-size:.85rem}
.figure .value{display:block;font-size:1.45rem;font-weight:650;font-variant-numeric:tabular-nums;min-height:2.2rem;overflow-wrap:anywhere}
.figure .sub{display:block;color:var(--muted);font-size:.8rem;font-variant-numeric:tabular-nums}
[data-state=loading] .value{background:linear-gradient(90deg,var(--line),var(--card),var(--line));background-size:200% 100%;border-radius:6px;color:transparent;animation:shine 1.2s linear infinite}
@keyframes shine{to{background-position:-200% 0}}
@media (prefers-reduced-motion:reduce){[data-state=loading] .value{animation:none}}
table{width:100%;border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{padding:var(--s2) var(--s3);border-block-end:1px solid var(--line);text-align:start;vertical-align:top}
th{color:var(--muted);font-weight:600;font-size:.85rem}
td.num,th.num{text-align:end}
.status{font-size:.85rem;font-weight:600}
.status-paid,.status-payable{color:var(--ok)}.status-held,.status-pending{color:var(--warn)}.status-reversed{color:var(--bad)}
.notice{background:var(--card);border:1px solid var(--line);border-radius:var(--r);padding:var(--s4);display:flex;flex-wrap:wrap;gap:var(--s3);align-items:center;justify-content:space-between}
.notice p{flex:1 1 16rem}
.error{color:var(--bad);font-weight:600}
[hidden]{display:none!important}
@media (max-width:600px){
 main{padding:var(--s3)}
 .figures{grid-template-columns:repeat(2,minmax(0,1fr))}
 table,tbody,tr,td{display:block}thead{display:none}
 tr{border:1px solid var(--line);border-radius:var(--r);margin-block-end:var(--s2);padding:var(--s2) var(--s3)}
 td{border:0;padding:var(--s1) 0;display:flex;justify-content:space-between;gap:var(--s3)}
 td.num{text-align:end}
 td::before{content:attr(data-label);color:var(--muted);font-size:.85rem;font-weight:400}
}`;

/** The page's script: reads the token from its URL, fills the page, offers the copy and the payouts invitation. */
const SCRIPT = `(() => {
'use strict';
const S = JSON.parse(document.getElementById('strings').textContent);
const lang = document.documentElement.lang;
const main = document.getElementById('embed');
const $ = (id) => document.getElementById(id);
const token = new URLSearchParams(location.search).get('token') || '';
const auth = { authorization: 'Bearer ' + token };
const number = new Intl.NumberFormat(lang);
const date = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeZone: 'UTC' });
const digits = (c) => { try { return new Intl.NumberFormat('en', { style: 'currency', currency: c }).resolvedOptions().maximumFractionDigits; } catch { return 2; } };
const money = (minor, c) => {
  const cur = c.toUpperCase();
  const major = Number(minor) / Math.pow(10, digits(cur));
  try { return new Intl.NumberFormat(lang, { style: 'currency', currency: cur }).format(major); } catch { return number.format(major) + ' ' + cur; }
};
const say = (el, text) => { el.textContent = text; };
const failWith = (body) => {
  const e = $('error');
  say(e, (body && body.error && body.error[lang === 'ar' ? 'ar' : 'en']) || S.failed);
  e.hidden = false;
  main.dataset.state = 'failed';
  main.removeAttribute('aria-busy');
};
// A name or an address is isolated (bdi): in Arabic text its dots and signs keep their places.
const isolated = (text) => { const b = document.createElement('bdi'); b.textContent = text; return b; };
const td = (label, content, cls) => { const c = document.createElement('td'); c.dataset.label = label; c.append(content); if (cls) c.className = cls; return c; };
const sayWith = (el, template, values) => {
  el.replaceChildren(...template.split(/(\\{\\w+\\})/).map((part) => { const k = /^\\{(\\w+)\\}$/.exec(part); return k && k[1] in values ? isolated(values[k[1]]) : part; }));
};

function render(d) {
  say($('program'), d.program.name);
  if (d.link) { $('link').value = d.link.shortUrl; $('link-box').hidden = false; } else { $('link-preparing').hidden = false; }
  say($('clicks'), number.format(d.totals.clicks));
  say($('leads'), number.format(d.totals.leads));
  say($('sales'), number.format(d.totals.sales));
  const currencies = Object.keys(d.totals.earnings);
  if (currencies.length === 0) currencies.push(d.program.currency);
  const of = (c, k) => Number((d.totals.earnings[c] || {})[k] || 0);
  say($('earnings'), currencies.map((c) => money(of(c, 'pending') + of(c, 'held') + of(c, 'payable') + of(c, 'paid'), c)).join(' · '));
  say($('earnings-paid'), currencies.map((c) => money(of(c, 'paid'), c)).join(' · ') + ' ' + S.paid);
  const rows = $('commission-rows');
  for (const c of d.commissions) {
    const tr = document.createElement('tr');
    tr.append(
      td(S.date, date.format(new Date(c.createdAt))),
      td(S.type, S.types[c.type] || c.type),
      td(S.customer, isolated((c.customer && c.customer.name) || '—')),
      td(S.amount, money(c.earnings, c.currency), 'num'),
      td(S.status, S.statuses[c.status] || c.status, 'status status-' + c.status),
    );
    rows.append(tr);
  }
  $(d.commissions.length ? 'commission-table' : 'no-commissions').hidden = false;
  if (d.payouts.offer === 'invite') {
    sayWith($('payouts-text'), S.payoutsInvite, { email: d.payouts.email });
    $('payouts-invite').hidden = false;
    $('payouts').hidden = false;
  } else if (d.payouts.offer === 'portal') {
    say($('payouts-text'), S.payoutsPortal);
    const a = $('payouts-portal');
    a.href = d.payouts.portalUrl;
    a.hidden = false;
    $('payouts').hidden = false;
  }
  main.dataset.state = 'ready';
  main.removeAttribute('aria-busy');
}

$('copy').addEventListener('click', async () => {
  const input = $('link');
  try {
    await navigator.clipboard.writeText(input.value);
    say($('copy-status'), S.copied);
  } catch {
    input.select();
    say($('copy-status'), document.execCommand && document.execCommand('copy') ? S.copied : S.copyFailed);
  }
});

$('payouts-invite').addEventListener('click', async () => {
  const button = $('payouts-invite');
  button.disabled = true;
  const res = await fetch('/api/embed/referrals/payouts-invite', { method: 'POST', headers: auth, credentials: 'omit' }).catch(() => null);
  const body = res ? await res.json().catch(() => null) : null;
  if (res && res.ok) {
    sayWith($('payouts-status'), S.payoutsSent, { email: body.email });
    button.hidden = true;
  } else {
    say($('payouts-status'), (body && body.error && body.error[lang === 'ar' ? 'ar' : 'en']) || S.failed);
    button.disabled = false;
  }
});

fetch('/api/embed/referrals', { headers: auth, credentials: 'omit' })
  .then(async (res) => {
    const body = await res.json().catch(() => null);
    if (!res.ok || !body) return failWith(body);
    render(body);
  })
  .catch(() => failWith(null));
})();`;

/** The page's HTML; its nonce also goes into the answer's Content-Security-Policy. */
export function embedPage(lang: EmbedLang, nonce: string): string {
  const s = STRINGS[lang];
  const t = (k: Exclude<keyof typeof s, 'types' | 'statuses'>) => escapeHtml(s[k]);
  // `<` escaped: the JSON cannot end its script element.
  const strings = JSON.stringify(s).replace(/</g, '\\u003c');
  const figure = (id: string, label: string, sub = '') =>
    `<div class="figure"><span class="label">${label}</span><span class="value" id="${id}">0</span>${sub}</div>`;
  return `<!doctype html><html lang="${lang}" dir="${lang === 'ar' ? 'rtl' : 'ltr'}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${t('title')}</title>
<style nonce="${nonce}">${STYLE}</style></head>
<body><main id="embed" data-state="loading" aria-busy="true">
<header><h1 id="program">${t('title')}</h1><p class="muted">${t('hello')}</p></header>
<section aria-labelledby="link-heading"><h2 id="link-heading">${t('yourLink')}</h2>
<div class="link" id="link-box" hidden><input id="link" readonly aria-labelledby="link-heading"><button id="copy" type="button">${t('copy')}</button></div>
<p id="link-preparing" class="muted" hidden>${t('preparing')}</p><p id="copy-status" class="muted" role="status" aria-live="polite"></p></section>
<section aria-label="${t('allTime')}"><div class="figures">
${figure('clicks', t('clicks'))}${figure('leads', t('leads'))}${figure('sales', t('sales'))}${figure('earnings', t('earnings'), '<span class="sub" id="earnings-paid"></span>')}
</div></section>
<section id="payouts" hidden aria-labelledby="payouts-heading"><h2 id="payouts-heading">${t('payouts')}</h2><div class="notice"><p id="payouts-text"></p>
<button id="payouts-invite" type="button" hidden>${t('payoutsButton')}</button><a id="payouts-portal" class="button" target="_blank" rel="noopener noreferrer" hidden>${t('payoutsPortalLink')}</a></div>
<p id="payouts-status" role="status" aria-live="polite"></p></section>
<section aria-labelledby="commissions-heading"><h2 id="commissions-heading">${t('commissions')}</h2>
<table id="commission-table" hidden><thead><tr><th scope="col">${t('date')}</th><th scope="col">${t('type')}</th><th scope="col">${t('customer')}</th><th scope="col" class="num">${t('amount')}</th><th scope="col">${t('status')}</th></tr></thead><tbody id="commission-rows"></tbody></table>
<p id="no-commissions" class="muted" hidden>${t('noCommissions')}</p></section>
<p id="error" class="error" role="alert" hidden></p>
</main>
<script type="application/json" id="strings">${strings}</script>
<script nonce="${nonce}">${SCRIPT}</script></body></html>`;
}

/** What an unknown or expired token gets: a short page in both languages (framed by nobody: its program is unknown). */
export function embedExpiredPage(lang: EmbedLang, text: { en: string; ar: string }): string {
  return `<!doctype html><html lang="${lang}" dir="${lang === 'ar' ? 'rtl' : 'ltr'}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(STRINGS[lang].title)}</title></head>
<body><main><p id="embed-error">${escapeHtml(text[lang])}</p></main></body></html>`;
}
