import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useT } from './i18n/index.js';

/** Loads a page's chunk on first use (dynamic import), showing a loading line meanwhile. */
export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | undefined;
  return function LazyPage(props: P) {
    const t = useT();
    const [Page, setPage] = useState(() => loaded);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (Page) return;
      load().then(
        (c) => setPage(() => (loaded = c)),
        () => setFailed(true),
      );
    }, [Page]);
    if (failed) return <p role="alert">{t.failed}</p>;
    return Page ? <Page {...props} /> : <p aria-busy="true">{t.loading}</p>;
  };
}
