import { useT, LangContext, type Lang } from './i18n/index.js';
import { onLinkClick } from './router.js';
import { mayOpen } from './access.js';
import { matchRoute, SECTIONS } from './routes.js';
import type { Me } from './session.js';
import { useContext, useEffect, useState } from 'preact/hooks';
import { useDocumentTitle } from './ui/document-title.js';
import { installShortcuts } from './ui/shortcuts.js';
import { ShortcutsHelp } from './ui/shortcuts-help.js';

const NAV = [
  ['/', 'overview'],
  ['/links', 'links'],
  ['/analytics', 'analytics'],
  ['/conversions', 'conversions'],
  ['/program', 'program'],
  ['/settings', 'settings'],
] as const;

interface Props {
  me: Me;
  path: string;
  workspaceId: string | undefined;
  onWorkspace: (id: string) => void;
  onSignOut: () => void;
}

/** The signed-in frame: header (workspace, language, sign out), the main navigation, the page. */
export function Shell({ me, path, workspaceId, onWorkspace, onSignOut }: Props) {
  const t = useT();
  const { lang, setLang } = useContext(LangContext);
  const workspace = me.workspaces.find((w) => w.id === workspaceId);
  const role = workspace?.role;
  const route = matchRoute(path);
  // Settings are the owner's, except Webhooks (webhooksRead); the partner program needs programsRead: a section shows the pages one may open.
  const allowed = (href: string) => workspace !== undefined && mayOpen(href, workspace);
  const settings = SECTIONS[1].filter(([href]) => allowed(href));
  const nav = NAV.filter(([href]) => (href === '/settings' ? settings.length > 0 : href !== '/program' || allowed(href))).map(
    ([href, key]) => [href === '/settings' ? settings[0]![0] : href, key] as const,
  );
  const inSection = SECTIONS.find((items) => items.some(([p]) => route?.pattern === p || route?.pattern.startsWith(p + '/')))?.filter(([href]) =>
    allowed(href),
  );
  const section = inSection?.length ? inSection : undefined;
  let page;
  let pageOwnsHeading = false;
  if (!workspaceId || !workspace || !role) page = <p>{t.noWorkspace}</p>;
  else if (!route || !mayOpen(route.pattern, workspace)) page = <p>{t.notFound}</p>;
  // The server refuses this person here (403 mfa_required): say why and where to fix it, not a page of errors. The account pages stay open.
  else if (workspace.requireMfa && !me.secondFactor && !route.pattern.startsWith('/account')) page = <MfaRequired />;
  else {
    // A link's page names itself (h1 and tab) after the link, so the frame leaves both to it.
    pageOwnsHeading = route.pattern === '/links/:id';
    page = <route.page key={workspaceId} me={me} workspaceId={workspaceId} workspace={workspace} role={role} params={route.params} />;
  }
  const title = [...NAV, ...SECTIONS.flat(), ['/settings/webhooks/:id', 'webhooks'] as const].find(([p]) => p === route?.pattern);
  const heading = title ? t[title[1]] : t.appName;
  useDocumentTitle(pageOwnsHeading ? null : heading, t.appName);
  const [shortcutsShown, setShortcutsShown] = useState(false);
  useEffect(() => installShortcuts(() => setShortcutsShown(true)), []);
  return (
    <div class="shell">
      <header class="topbar">
        <strong class="brand">{t.appName}</strong>
        {/* for/id, not a wrapping label: the select's name is then the label alone, without the chosen option. */}
        <span class="field-inline">
          <label for="lt-workspace">{t.workspace}</label>
          <select id="lt-workspace" value={workspaceId} onChange={(e) => onWorkspace(e.currentTarget.value)}>
            {me.workspaces.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
        </span>
        <span class="field-inline">
          <label for="lt-language">{t.language}</label>
          <select id="lt-language" value={lang} onChange={(e) => setLang(e.currentTarget.value as Lang)}>
            <option value="en" lang="en">
              English
            </option>
            <option value="ar" lang="ar">
              العربية
            </option>
          </select>
        </span>
        <a class="who" href="/app/account" onClick={onLinkClick} aria-current={path === '/account' || path === '/account/security' ? 'page' : undefined}>
          {me.user.name}
        </a>
        <button type="button" onClick={onSignOut}>
          {t.signOut}
        </button>
      </header>
      <nav class="nav" aria-label={t.navLabel}>
        <ul>
          {nav.map(([href, key]) => (
            <li key={href}>
              <a
                href={'/app' + (href === '/' ? '' : href)}
                onClick={onLinkClick}
                aria-current={path === href ? 'page' : section?.[0]?.[0] === href ? 'true' : undefined}
              >
                {t[key]}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="page">
        {section && (
          <nav class="subnav" aria-label={t.sectionLabel}>
            <ul>
              {section.map(([href, key]) => (
                <li key={href}>
                  <a
                    href={'/app' + href}
                    onClick={onLinkClick}
                    aria-current={path === href ? 'page' : href !== section[0]![0] && route?.pattern.startsWith(href + '/') ? 'true' : undefined}
                  >
                    {t[key]}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        )}
        {!pageOwnsHeading && <h1>{heading}</h1>}
        {page}
      </main>
      {shortcutsShown && <ShortcutsHelp onClose={() => setShortcutsShown(false)} />}
    </div>
  );
}

/** What a member without two-factor sign-in sees in a workspace that requires it. */
function MfaRequired() {
  const t = useT();
  return (
    <section class="notice stack-tight" role="alert" aria-labelledby="mfa-required-heading">
      <h2 id="mfa-required-heading">{t.mfaRequiredTitle}</h2>
      <p>{t.mfaRequiredText}</p>
      <p>
        <a href="/app/account/security" onClick={onLinkClick}>
          {t.mfaRequiredLink}
        </a>
      </p>
    </section>
  );
}
