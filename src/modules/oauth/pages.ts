import { escapeHtml as escape, htmlPage } from '../../http/html-page.js';

/** An authorize request that cannot go back to the app (unknown client, unregistered redirect URI): said here, never redirected. */
export function authorizeErrorPage(reason: string): string {
  return htmlPage({
    title: 'Cannot connect this app',
    body: `<h1>This app cannot be connected</h1><p>${escape(reason)}</p><p>Tell the app's developer; nothing was shared.</p>`,
  });
}
