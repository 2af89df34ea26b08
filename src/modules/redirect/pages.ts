import { escapeHtml as escape, htmlPage } from '../../http/html-page.js';
import type { RedirectLink } from './resolve.js';

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
  if (tags.length)
    tags.push(`<meta property="og:type" content="website"><meta name="twitter:card" content="${link.image ? 'summary_large_image' : 'summary'}">`);
  return tags.join('');
}

export function notFoundPage(): string {
  return htmlPage({ title: 'Link not found', body: '<h1>Link not found</h1><p>This short link does not exist or has been removed.</p>' });
}

export function serverErrorPage(): string {
  return htmlPage({
    title: 'Something went wrong',
    body: '<h1>Something went wrong</h1><p>This link cannot be followed right now. Please try again later.</p>',
  });
}

export function expiredPage(link: RedirectLink): string {
  return htmlPage({
    title: 'Link expired',
    head: openGraph(link, undefined),
    body: '<h1>This link has expired</h1><p>The link you followed is no longer active.</p>',
  });
}

export function passwordPage(link: RedirectLink, action: string, error?: 'wrong' | 'too_many'): string {
  const message =
    error === 'wrong'
      ? '<p class="error" role="alert">Wrong password. Please try again.</p>'
      : error === 'too_many'
        ? '<p class="error" role="alert">Too many attempts. Please wait a minute and try again.</p>'
        : '';
  return htmlPage({
    title: link.title ? `${link.title} · password required` : 'Password required',
    head: openGraph(link, undefined),
    body: `<h1>${link.title ? escape(link.title) : 'This link is password protected'}</h1>
<p>Enter the password to continue.</p>${message}
<form method="post" action="${escape(action)}"><label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Continue</button></form>`,
  });
}

/** What link-preview bots get: the link's own title, description and image. */
export function previewPage(link: RedirectLink, shortUrl: string): string {
  return htmlPage({
    title: link.title ?? shortUrl,
    head: openGraph(link, shortUrl),
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
