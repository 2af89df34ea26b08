import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, setWorkspace } from './api/client.js';
import { applyLang, initialLang, LangContext, type Lang } from './i18n/index.js';
import { lazyPage } from './lazy.js';
import { Shell, type Me } from './shell.js';
import { navigate, useRoute } from './router.js';

const SignIn = lazyPage(() => import('./pages/sign-in.js').then((m) => m.SignIn));
const Setup = lazyPage(() => import('./pages/setup.js').then((m) => m.Setup));

const WORKSPACE_KEY = 'linktrail.workspace';

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
    const { data } = await api.GET('/api/me');
    if (!data) return setMe(null);
    const saved = localStorage.getItem(WORKSPACE_KEY);
    const chosen = data.workspaces.find((w) => w.id === saved) ?? data.workspaces[0];
    setWorkspace(chosen?.id);
    setWorkspaceId(chosen?.id);
    setMe(data);
  }, []);
  useEffect(() => void loadMe(), [loadMe]);

  const chooseWorkspace = (id: string) => {
    localStorage.setItem(WORKSPACE_KEY, id);
    setWorkspace(id);
    setWorkspaceId(id);
  };
  const signedIn = async () => {
    await loadMe();
    navigate('/');
  };
  const signOut = async () => {
    await api.POST('/api/auth/logout');
    setWorkspace(undefined);
    setMe(null);
    navigate('/');
  };

  let body;
  if (path === '/setup') body = <Setup onDone={signedIn} />;
  else if (me === undefined) body = <main id="main"><p aria-busy="true">…</p></main>;
  else if (me === null) body = <SignIn onDone={signedIn} />;
  else body = <Shell me={me} path={path} workspaceId={workspaceId} onWorkspace={chooseWorkspace} onSignOut={signOut} />;
  return <LangContext.Provider value={{ lang, setLang }}>{body}</LangContext.Provider>;
}
