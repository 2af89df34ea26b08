import { useEffect, useState } from 'preact/hooks';

/** The path inside the app (after /app), e.g. '/', '/setup' (the query is the page's own: location.search). */
export function appPath(): string {
  const path = location.pathname.replace(/^\/app/, '').replace(/\/+$/, '');
  return path === '' ? '/' : path;
}

/**
 * Where to go after signing in: the `next` query parameter when it is a path of this origin
 * (e.g. /oauth/authorize?… sent here by the authorization server), else undefined. Nothing
 * absolute, protocol-relative (//host) or with a backslash: no open redirect.
 */
export function returnPath(): string | undefined {
  const next = new URLSearchParams(location.search).get('next');
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return undefined;
  const url = new URL(next, location.origin);
  return url.origin === location.origin ? url.pathname + url.search : undefined;
}

/** Client-side navigation: pushState and tell the router. */
export function navigate(to: string): void {
  history.pushState(null, '', '/app' + (to === '/' ? '' : to));
  dispatchEvent(new PopStateEvent('popstate'));
}

export function useRoute(): string {
  const [path, setPath] = useState(appPath);
  useEffect(() => {
    const on = () => setPath(appPath());
    addEventListener('popstate', on);
    return () => removeEventListener('popstate', on);
  }, []);
  return path;
}

/** A same-origin link that navigates without reloading (a modified click keeps the browser's way). */
export function onLinkClick(e: MouseEvent): void {
  const a = e.currentTarget as HTMLAnchorElement;
  if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate((a.pathname.replace(/^\/app/, '') || '/') + a.search);
}
