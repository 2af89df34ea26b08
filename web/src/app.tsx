import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, setWorkspace } from './api/client.js';
import { applyLang, initialLang, LangContext, type Lang } from './i18n/index.js';
import { lazyPage } from './lazy.js';
import type { Me } from './session.js';
import { Shell } from './shell.js';
import { appPath, navigate, returnPath, useRoute } from './router.js';
import { CONSENT_PATH, ConsentPage, matchRoute } from './routes.js';

const SignIn = lazyPage(() => import('./pages/sign-in.js').then((m) => m.SignIn));
const Setup = lazyPage(() => import('./pages/setup.js').then((m) => m.Setup));
const ForgotPassword = lazyPage(() => import('./pages/password-reset.js').then((m) => m.ForgotPassword));
const ResetPassword = lazyPage(() => import('./pages/password-reset.js').then((m) => m.ResetPassword));
const Invite = lazyPage(() => import('./pages/invite/index.js').then((m) => m.InvitePage));
const PartnerPortal = lazyPage(() => import('./pages/partner-portal/index.js').then((m) => m.PartnerPortal));

const WORKSPACE_KEY = 'linktrail.workspace';

// The page the app opens on is fetched while /api/me is asked, not after it answers.
(appPath() === CONSENT_PATH ? ConsentPage : matchRoute(appPath())?.page)?.preload();
// And /api/me is asked as this module runs, not in an effect after the first paint (~40–100 ms sooner).
const askMe = () => api.GET('/api/me');
let firstMe: ReturnType<typeof askMe> | undefined = askMe();

export function App() {
  const [lang, setLangState] = useState<Lang>(initialLang);
  const setLang = useCallback((l: Lang) => {
    applyLang(l, true);
    setLangState(l);
  }, []);
  useEffect(() => applyLang(lang, false), []);

  const path = useRoute();
  // undefined: still asking; null: nobody is signed in.
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [workspaceId, setWorkspaceId] = useState<string | undefined>();

  const loadMe = useCallback(async () => {
    const pending = firstMe ?? askMe();
    firstMe = undefined;
    const { data } = await pending;
    if (!data) return setMe(null);
    // A link into a workspace (a mail's `?workspace=`) chooses it, and it stays chosen.
    const asked = data.workspaces.find((w) => w.id === new URLSearchParams(location.search).get('workspace'));
    if (asked) localStorage.setItem(WORKSPACE_KEY, asked.id);
    const saved = localStorage.getItem(WORKSPACE_KEY);
    const chosen = asked ?? data.workspaces.find((w) => w.id === saved) ?? data.workspaces[0];
    setWorkspace(chosen?.id);
    setWorkspaceId(chosen?.id);
    setMe(data);
  }, []);
  useEffect(() => void loadMe(), [loadMe]);
  // A page changed who is signed in or their workspaces (a rename, a role, leaving): read /api/me again.
  useEffect(() => {
    const reload = () => void loadMe();
    addEventListener('linktrail:me-changed', reload);
    return () => removeEventListener('linktrail:me-changed', reload);
  }, [loadMe]);

  const chooseWorkspace = (id: string) => {
    localStorage.setItem(WORKSPACE_KEY, id);
    setWorkspace(id);
    setWorkspaceId(id);
  };
  // Back where the sign-in was asked for (a same-origin `next`, e.g. the OAuth authorize request), else the overview.
  const signedIn = async () => {
    const next = returnPath();
    if (next) return location.assign(next);
    await loadMe();
    if (appPath() !== CONSENT_PATH) navigate('/');
  };
  const signOut = async (stay = false) => {
    await api.POST('/api/auth/logout');
    setWorkspace(undefined);
    setMe(null);
    if (!stay) navigate('/');
  };
  // An accepted invitation: that workspace is chosen, then the overview.
  const joined = async (id: string) => {
    localStorage.setItem(WORKSPACE_KEY, id);
    await loadMe();
    navigate('/');
  };

  let body;
  if (path === '/setup') body = <Setup onDone={signedIn} />;
  else if (path === '/forgot-password') body = <ForgotPassword />;
  else if (path === '/reset-password') body = <ResetPassword />;
  else if (path === '/invite' && me !== undefined) body = <Invite me={me} onAccepted={joined} onSignedIn={loadMe} onSignOut={() => void signOut(true)} />;
  else if (path === '/partner/invite' && me !== undefined)
    body = <Invite kind="partner" me={me} onAccepted={joined} onSignedIn={loadMe} onSignOut={() => void signOut(true)} />;
  else if (me === undefined)
    body = (
      <main id="main">
        <p aria-busy="true">…</p>
      </main>
    );
  else if (me === null) body = <SignIn onDone={signedIn} />;
  else if (path === CONSENT_PATH) body = <ConsentPage me={me} />;
  // The partner portal; also home for an account that is only a partner (operations.md §18).
  else if (path === '/partner' || (path === '/' && me.workspaces.length === 0 && me.partnerPrograms.length > 0))
    body = <PartnerPortal me={me} onSignOut={() => void signOut()} />;
  else body = <Shell me={me} path={path} workspaceId={workspaceId} onWorkspace={chooseWorkspace} onSignOut={() => void signOut()} />;
  return <LangContext.Provider value={{ lang, setLang }}>{body}</LangContext.Provider>;
}
