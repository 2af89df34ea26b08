import type { RedirectLink } from './resolve.js';

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `*{box-sizing:border-box}body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;
font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f6f7f9;color:#1b1f24;padding:1rem}
main{background:#fff;max-width:26rem;width:100%;padding:2rem;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.35rem;margin:0 0 .75rem}p{margin:.5rem 0}label{display:block;font-weight:600;margin:1rem 0 .35rem}
input{width:100%;font:inherit;padding:.6rem .7rem;border:1px solid #8a94a3;border-radius:8px}
button{margin-top:1rem;width:100%;font:inherit;font-weight:600;padding:.65rem;border:0;border-radius:8px;background:#1f5eff;color:#fff;cursor:pointer}
button:focus-visible,input:focus-visible{outline:3px solid #99b8ff;outline-offset:2px}.error{color:#b3261e;font-weight:600}
@media (prefers-color-scheme:dark){body{background:#101317;color:#e8eaed}main{background:#1b1f24}input{background:#101317;color:#e8eaed}}`;

/** Open Graph tags from the link's own preview fields, so shared links unfurl with them. */
function openGraph(link: RedirectLink | undefined, url: string | undefined): string {
  if (!link) return '';
  const tags: string[] = [];
  if (link.title) tags.push(`<meta property="og:title" content="${escape(link.title)}"><meta name="twitter:title" content="${escape(link.title)}">`);
  if (link.description) {
    tags.push(`<meta name="description" content="${escape(link.description)}"><meta property="og:description" content="${escape(link.description)}">`);
  }
  if (link.image) tags.push(`<meta property="og:image" content="${escape(link.image)}"><meta name="twitter:image" content="${escape(link.image)}">`);
  if (url) tags.push(`<meta property="og:url" content="${escape(url)}">`);
  if (tags.length) tags.push(`<meta property="og:type" content="website"><meta name="twitter:card" content="${link.image ? 'summary_large_image' : 'summary'}">`);
  return tags.join('');
}

function page(o: { title: string; body: string; link?: RedirectLink; url?: string; robots?: boolean }): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(o.title)}</title>${o.robots === false ? '' : '<meta name="robots" content="noindex">'}${openGraph(o.link, o.url)}<style>${STYLE}</style></head>
<body><main>${o.body}</main></body></html>`;
}

export function notFoundPage(): string {
  return page({ title: 'Link not found', body: '<h1>Link not found</h1><p>This short link does not exist or has been removed.</p>' });
}

export function serverErrorPage(): string {
  return page({ title: 'Something went wrong', body: '<h1>Something went wrong</h1><p>This link cannot be followed right now. Please try again later.</p>' });
}

export function expiredPage(link: RedirectLink): string {
  return page({ title: 'Link expired', link, body: '<h1>This link has expired</h1><p>The link you followed is no longer active.</p>' });
}

export function passwordPage(link: RedirectLink, action: string, error?: 'wrong' | 'too_many'): string {
  const message =
    error === 'wrong'
      ? '<p class="error" role="alert">Wrong password. Please try again.</p>'
      : error === 'too_many'
        ? '<p class="error" role="alert">Too many attempts. Please wait a minute and try again.</p>'
        : '';
  return page({
    title: link.title ? `${link.title} · password required` : 'Password required',
    link,
    body: `<h1>${link.title ? escape(link.title) : 'This link is password protected'}</h1>
<p>Enter the password to continue.</p>${message}
<form method="post" action="${escape(action)}"><label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Continue</button></form>`,
  });
}

/** What link-preview bots get: the link's own title, description and image. */
export function previewPage(link: RedirectLink, shortUrl: string): string {
  return page({
    title: link.title ?? shortUrl,
    link,
    url: shortUrl,
    robots: false,
    body: `<h1>${escape(link.title ?? shortUrl)}</h1>${link.description ? `<p>${escape(link.description)}</p>` : ''}`,
  });
}

/** The destination in a full-page frame; the address bar keeps the short link. */
export function cloakedPage(link: RedirectLink, destination: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(link.title ?? new URL(destination).hostname)}</title>${openGraph(link, undefined)}
<style>html,body{margin:0;height:100%;overflow:hidden}iframe{border:0;width:100%;height:100%;display:block}</style></head>
<body><iframe src="${escape(destination)}" title="${escape(link.title ?? 'Destination')}" allow="fullscreen; clipboard-write"></iframe></body></html>`;
}
