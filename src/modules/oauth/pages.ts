import { escapeHtml as escape, htmlPage } from '../../http/html-page.js';
import { SCOPE_GUIDE } from '../../http/scope-guide.js';
import type { Scope } from '../../http/scopes.js';

/** An authorize request that cannot go back to the app (unknown client, unregistered redirect URI): said here, never redirected. */
export function authorizeErrorPage(reason: string): string {
  return htmlPage({
    title: 'Cannot connect this app',
    body: `<h1>This app cannot be connected</h1><p>${escape(reason)}</p><p>Tell the app's developer; nothing was shared.</p>`,
  });
}

export function signInPage(o: { next: string; email?: string; error?: string }): string {
  const error = o.error ? `<p class="error" role="alert">${escape(o.error)}</p>` : '';
  return htmlPage({
    title: 'Sign in · Linktrail',
    body: `<h1>Sign in to Linktrail</h1><p>An app asks to connect to your workspace. Sign in to continue.</p>${error}
<form method="post" action="/oauth/sign-in"><input type="hidden" name="next" value="${escape(o.next)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escape(o.email ?? '')}" ${o.email ? '' : 'autofocus'}>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required ${o.email ? 'autofocus' : ''}>
<button type="submit">Sign in</button></form>`,
  });
}

/** The consent page: the app, each scope in words, the workspaces whose role allows them all. */
export function consentPage(o: { appName: string; scopes: readonly Scope[]; workspaces: { id: string; name: string }[]; params: Record<string, string>; person: { name: string; email: string } }): string {
  const hidden = Object.entries(o.params)
    .map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v)}">`)
    .join('');
  const scopes = o.scopes.map((s) => `<li><strong>${escape(s)}</strong>: ${escape(SCOPE_GUIDE[s])}</li>`).join('');
  const choice =
    o.workspaces.length === 0
      ? '<p class="error" role="alert">None of your workspaces gives you every one of these permissions, so you can only deny.</p>'
      : `<label for="workspaceId">Workspace</label><select id="workspaceId" name="workspaceId" required>${o.workspaces
          .map((w) => `<option value="${escape(w.id)}">${escape(w.name)}</option>`)
          .join('')}</select>`;
  return htmlPage({
    title: `Connect ${o.appName} · Linktrail`,
    body: `<h1>Connect ${escape(o.appName)}?</h1><p><strong>${escape(o.appName)}</strong> asks to act in one of your workspaces. It will be able to:</p><ul>${scopes}</ul>
<form method="post" action="/oauth/authorize">${hidden}${choice}
<div class="actions"><button type="submit" name="decision" value="deny" class="secondary">Deny</button>${o.workspaces.length ? '<button type="submit" name="decision" value="allow">Allow</button>' : ''}</div></form>
<p>You can disconnect it at any time in the workspace settings.</p>
<p>Signed in as <strong>${escape(o.person.name)}</strong> (${escape(o.person.email)}).</p>`,
  });
}
