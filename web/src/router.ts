import { useEffect, useState } from 'preact/hooks';

/** The path inside the app (after /app), e.g. '/', '/setup' (the query is the page's own: location.search). */
export function appPath(): string {
  const path = location.pathname.replace(/^\/app/, '').replace(/\/+$/, '');
  return path === '' ? '/' : path;
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
