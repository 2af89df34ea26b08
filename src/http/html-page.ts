/** The one shell of every server-rendered page (short-link pages, OAuth sign-in and consent): no script, no other origin. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `*{box-sizing:border-box}body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;
font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f6f7f9;color:#1b1f24;padding:1rem}
main{background:#fff;max-width:26rem;width:100%;padding:2rem;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.35rem;margin:0 0 .75rem}p{margin:.5rem 0}label{display:block;font-weight:600;margin:1rem 0 .35rem}
input{width:100%;font:inherit;padding:.6rem .7rem;border:1px solid #8a94a3;border-radius:8px}
button{margin-top:1rem;width:100%;font:inherit;font-weight:600;padding:.65rem;border:0;border-radius:8px;background:#1f5eff;color:#fff;cursor:pointer}
button:focus-visible,input:focus-visible{outline:3px solid #99b8ff;outline-offset:2px}.error{color:#b3261e;font-weight:600}
@media (prefers-color-scheme:dark){body{background:#101317;color:#e8eaed}main{background:#1b1f24}input{background:#101317;color:#e8eaed}}
button.secondary{background:transparent;color:inherit;border:1px solid #8a94a3}select{width:100%;font:inherit;padding:.55rem;border:1px solid #8a94a3;border-radius:8px}
.actions{display:flex;gap:.75rem}.actions button{flex:1}
ul{padding-inline-start:1.2rem}li{margin:.25rem 0}`;

/** `lang` (default en) sets the page's language and, for Arabic, right-to-left. */
export function htmlPage(o: { title: string; body: string; head?: string; robots?: boolean; lang?: 'en' | 'ar' }): string {
  const lang = o.lang === 'ar' ? 'lang="ar" dir="rtl"' : 'lang="en"';
  return `<!doctype html><html ${lang}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(o.title)}</title>${o.robots === false ? '' : '<meta name="robots" content="noindex">'}${o.head ?? ''}<style>${STYLE}</style></head>
<body><main>${o.body}</main></body></html>`;
}
