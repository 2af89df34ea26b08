import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useT } from './i18n/index.js';

/**
 * Loads a page's chunk on first use (dynamic import), showing a loading line meanwhile.
 * `preload()` starts the import early (the app does so for the page it opens on, while it
 * asks who is signed in); a failed import is tried again on the next use.
 */
export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> & { preload(): void } {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  const once = () =>
    (loading ??= load().then(
      (c) => (loaded = c),
      (e: unknown) => {
        loading = undefined;
        throw e;
      },
    ));
  function LazyPage(props: P) {
    const t = useT();
    const [Page, setPage] = useState(() => loaded);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (Page) return;
      once().then(
        (c) => setPage(() => c),
        () => setFailed(true),
      );
    }, [Page]);
    if (failed) return <p role="alert">{t.failed}</p>;
    return Page ? <Page {...props} /> : <p aria-busy="true">{t.loading}</p>;
  }
  return Object.assign(LazyPage, { preload: () => void once().catch(() => undefined) });
}
