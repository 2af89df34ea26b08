/**
 * The public application page, BASE_URL/apply/{slug} (operations.md §18 "Applications"): a plain
 * server-rendered form in English or Arabic (right to left), no script, usable at 375 px. It
 * names the program and links its terms; nothing on it tells of other partners or figures.
 */
import { escapeHtml as esc, htmlPage } from '../../http/html-page.js';
import { HONEYPOT, MAX_PROMOTION, MAX_WEBSITE } from './schemas.js';

export type Lang = 'en' | 'ar';

/** `?lang=` first, then the browser's Accept-Language (the better-rated of en and ar), else English. */
export function pageLang(query: unknown, acceptLanguage: string | undefined): Lang {
  const asked = (query as { lang?: unknown } | undefined)?.lang;
  if (asked === 'ar' || asked === 'en') return asked;
  let best: { lang: Lang; q: number } | undefined;
  for (const part of (acceptLanguage ?? '').slice(0, 500).split(',')) {
    const [tag = '', ...params] = part.trim().toLowerCase().split(';');
    const base = tag.split('-')[0];
    if (base !== 'en' && base !== 'ar') continue;
    const q = Number(
      params
        .find((p) => p.trim().startsWith('q='))
        ?.trim()
        .slice(2) ?? 1,
    );
    if (Number.isFinite(q) && q > 0 && (!best || q > best.q)) best = { lang: base, q };
  }
  return best?.lang ?? 'en';
}

const TEXT = {
  en: {
    title: (p: string) => `Apply to ${p}`,
    heading: (p: string) => `Become a partner of ${p}`,
    intro: 'Tell us who you are and how you would promote us. We answer by e-mail: once approved, you receive an invitation to your partner account.',
    name: 'Name',
    email: 'E-mail',
    website: 'Website (optional)',
    websiteHint: 'Where you publish, such as https://example.com',
    promotion: 'How will you promote us? (optional)',
    promotionHint: `Plain text, at most ${MAX_PROMOTION} characters`,
    accept: 'I accept the program’s terms',
    acceptWithLink: (a: string) => `I accept the program’s ${a}`,
    terms: 'terms',
    submit: 'Apply',
    honeypot: 'Leave this field empty',
    other: 'العربية',
    otherLang: 'ar',
    problem: 'Please check the form:',
    sentTitle: 'Thank you',
    sent: 'Your application has been received. You will hear from us by e-mail.',
    closedTitle: 'Not taking applications',
    closed: 'There is no partner program taking applications at this address.',
    errorTitle: 'Your application could not be sent',
  },
  ar: {
    title: (p: string) => `التقدّم إلى ${p}`,
    heading: (p: string) => `انضمّ إلى شركاء ${p}`,
    intro: 'أخبرنا من أنت وكيف ستروّج لنا. نردّ عليك بالبريد الإلكتروني: حين يُقبل طلبك تصلك دعوة إلى حساب الشريك الخاص بك.',
    name: 'الاسم',
    email: 'البريد الإلكتروني',
    website: 'الموقع الإلكتروني (اختياري)',
    websiteHint: 'حيث تنشر، مثل https://example.com',
    promotion: 'كيف ستروّج لنا؟ (اختياري)',
    promotionHint: `نص عادي، ${MAX_PROMOTION} حرف على الأكثر`,
    accept: 'أوافق على شروط البرنامج',
    acceptWithLink: (a: string) => `أوافق على ${a}`,
    terms: 'شروط البرنامج',
    submit: 'تقديم الطلب',
    honeypot: 'اترك هذا الحقل فارغًا',
    other: 'English',
    otherLang: 'en',
    problem: 'يُرجى مراجعة النموذج:',
    sentTitle: 'شكرًا لك',
    sent: 'تسلّمنا طلبك. سنتواصل معك بالبريد الإلكتروني.',
    closedTitle: 'لا يقبل طلبات',
    closed: 'لا يوجد برنامج شركاء يقبل الطلبات على هذا العنوان.',
    errorTitle: 'تعذّر إرسال طلبك',
  },
} as const;

// The form's own layout over the shared shell: a wider card, the checkbox beside its text, the honeypot off-screen.
const HEAD = `<style>
main.apply{max-width:34rem}
main.apply textarea{width:100%;font:inherit;padding:.6rem .7rem;border:1px solid #8a94a3;border-radius:8px;min-height:7rem;resize:vertical}
main.apply .hint{font-size:.875rem;color:#4a5462;margin:.25rem 0 0}
main.apply label.check{display:flex;gap:.6rem;align-items:flex-start;font-weight:400;margin-top:1.25rem}
main.apply label.check input{width:auto;margin:.3rem 0 0;flex:none}
main.apply .hp{position:absolute;inset-inline-start:-10000px;inline-size:1px;block-size:1px;overflow:hidden}
main.apply .lang{text-align:end;margin:0 0 .5rem}
main.apply .alert{border:1px solid #b3261e;border-radius:8px;padding:.5rem .75rem;margin:1rem 0}
main.apply [aria-invalid=true]{border-color:#b3261e;border-width:2px}
main.apply textarea:focus-visible,main.apply a:focus-visible{outline:3px solid #99b8ff;outline-offset:2px}
main.apply a{color:#1f4fd1}
@media (prefers-color-scheme:dark){main.apply textarea{background:#101317;color:#e8eaed}main.apply .hint{color:#b8c0cc}main.apply a{color:#99b8ff}}
</style>`;

/** The shell wraps the body in <main>; the class widens it. */
const page = (lang: Lang, title: string, body: string) =>
  htmlPage({ title, lang, head: HEAD, body: body }).replace('<body><main>', '<body><main class="apply">');

const langSwitch = (lang: Lang, slug: string) => {
  const t = TEXT[lang];
  return `<p class="lang"><a href="/apply/${esc(slug)}?lang=${t.otherLang}" lang="${t.otherLang}" hreflang="${t.otherLang}">${t.other}</a></p>`;
};

export interface FormValues {
  name?: string;
  email?: string;
  website?: string;
  promotion?: string;
}

/** The form, with what was typed and the problem of a refused sending (its field marked). */
export function applyPage(o: {
  lang: Lang;
  slug: string;
  programName: string;
  termsUrl: string | null;
  values?: FormValues;
  error?: { field?: string; message: string };
}): string {
  const t = TEXT[o.lang];
  const v = o.values ?? {};
  const program = `<bdi>${esc(o.programName)}</bdi>`;
  const invalidOn = (field: string) => (o.error?.field === field ? ' aria-invalid="true" aria-describedby="apply-error"' : '');
  const accept = o.termsUrl ? t.acceptWithLink(`<a href="${esc(o.termsUrl)}" target="_blank" rel="noopener noreferrer">${t.terms}</a>`) : t.accept;
  const error = o.error ? `<div class="alert" role="alert" id="apply-error"><p class="error">${t.problem}</p><p>${esc(o.error.message)}</p></div>` : '';
  const body = `${langSwitch(o.lang, o.slug)}<h1>${t.heading(program)}</h1><p>${t.intro}</p>${error}
<form method="post" action="/apply/${esc(o.slug)}?lang=${o.lang}" novalidate>
<label for="apply-name">${t.name}</label>
<input id="apply-name" name="name" required maxlength="190" autocomplete="name" value="${esc(v.name ?? '')}"${invalidOn('name')}>
<label for="apply-email">${t.email}</label>
<input id="apply-email" name="email" type="email" dir="ltr" required maxlength="190" autocomplete="email" value="${esc(v.email ?? '')}"${invalidOn('email')}>
<label for="apply-website">${t.website}</label>
<input id="apply-website" name="website" inputmode="url" dir="ltr" maxlength="${MAX_WEBSITE}" autocomplete="url" aria-describedby="apply-website-hint" value="${esc(v.website ?? '')}"${invalidOn('website')}>
<p class="hint" id="apply-website-hint">${t.websiteHint}</p>
<label for="apply-promotion">${t.promotion}</label>
<textarea id="apply-promotion" name="promotion" maxlength="${MAX_PROMOTION}" aria-describedby="apply-promotion-hint"${invalidOn('promotion')}>${esc(v.promotion ?? '')}</textarea>
<p class="hint" id="apply-promotion-hint">${t.promotionHint}</p>
<div class="hp" aria-hidden="true"><label for="apply-${HONEYPOT}">${t.honeypot}</label><input id="apply-${HONEYPOT}" name="${HONEYPOT}" tabindex="-1" autocomplete="off"></div>
<label class="check"><input type="checkbox" name="acceptTerms" value="true" required${invalidOn('acceptTerms')}><span>${accept}</span></label>
<button type="submit">${t.submit}</button>
</form>`;
  return page(o.lang, t.title(o.programName), body);
}

const LABELS: Record<Lang, Record<string, string>> = {
  en: { name: 'Name', email: 'E-mail', website: 'Website', promotion: 'How you will promote us' },
  ar: { name: 'الاسم', email: 'البريد الإلكتروني', website: 'الموقع الإلكتروني', promotion: 'طريقة الترويج' },
};
const MUST_ACCEPT: Record<Lang, string> = {
  en: 'Accept the program’s terms to apply.',
  ar: 'اقبل شروط البرنامج لتتمكّن من التقدّم.',
};

/** A field's problem in the page's words: its label and the API's reason; the unticked terms box in a sentence of its own. */
export function fieldProblem(lang: Lang, field: string, reason: string): string {
  if (field === 'acceptTerms') return MUST_ACCEPT[lang];
  return `${LABELS[lang][field] ?? field}: ${reason}`;
}

/** After sending: the same words whoever applied (new, again, or a partner already). */
export function sentPage(o: { lang: Lang; slug: string; programName: string }): string {
  const t = TEXT[o.lang];
  return page(o.lang, t.title(o.programName), `${langSwitch(o.lang, o.slug)}<h1>${t.sentTitle}</h1><p role="status">${t.sent}</p>`);
}

/** An unknown or closed slug (404): the same page for both. */
export function closedPage(lang: Lang): string {
  const t = TEXT[lang];
  return page(lang, t.closedTitle, `<h1>${t.closedTitle}</h1><p>${t.closed}</p>`);
}

/** A refusal that is not a field's (throttled, full, too large): its message in the page's language. */
export function refusedPage(lang: Lang, message: string): string {
  const t = TEXT[lang];
  return page(lang, t.errorTitle, `<h1>${t.errorTitle}</h1><p class="error" role="alert">${esc(message)}</p>`);
}
