import type { paths } from './api/schema.js';
import { useT, LangContext, type Lang } from './i18n/index.js';
import { lazyPage } from './lazy.js';
import { onLinkClick } from './router.js';
import { useContext } from 'preact/hooks';

export type Me = paths['/api/me']['get']['responses'][200]['content']['application/json'];

const Overview = lazyPage(() => import('./pages/overview.js').then((m) => m.Overview));

const NAV = [
  ['/', 'overview'],
  ['/links', 'links'],
  ['/analytics', 'analytics'],
  ['/conversions', 'conversions'],
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
  let page;
  if (!workspaceId) page = <p>{t.noWorkspace}</p>;
  else if (path === '/') page = <Overview key={workspaceId} />;
  else if (NAV.some(([p]) => p === path)) page = <p>{t.soon}</p>;
  else page = <p>{t.notFound}</p>;
  const current = NAV.find(([p]) => p === path);
  return (
    <div class="shell">
      <header class="topbar">
        <strong class="brand">{t.appName}</strong>
        <label class="field-inline">
          <span>{t.workspace}</span>
          <select value={workspaceId} onChange={(e) => onWorkspace(e.currentTarget.value)}>
            {me.workspaces.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
        </label>
        <label class="field-inline">
          <span>{t.language}</span>
          <select value={lang} onChange={(e) => setLang(e.currentTarget.value as Lang)}>
            <option value="en" lang="en">English</option>
            <option value="ar" lang="ar">العربية</option>
          </select>
        </label>
        <span class="who">{me.user.name}</span>
        <button type="button" onClick={onSignOut}>
          {t.signOut}
        </button>
      </header>
      <nav class="nav" aria-label={t.navLabel}>
        <ul>
          {NAV.map(([href, key]) => (
            <li key={href}>
              <a href={'/app' + (href === '/' ? '' : href)} onClick={onLinkClick} aria-current={path === href ? 'page' : undefined}>
                {t[key]}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="page">
        <h1>{current ? t[current[1]] : t.appName}</h1>
        {page}
      </main>
    </div>
  );
}
