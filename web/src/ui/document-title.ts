import { useEffect } from 'preact/hooks';

/**
 * Names the browser tab after the page: "<heading> · <app>", or the app alone. `null` leaves the
 * tab to a page that names itself (a child's effect runs first, so the frame must not overwrite it).
 */
export function useDocumentTitle(heading: string | null, appName: string) {
  useEffect(() => {
    if (heading === null) return;
    document.title = heading && heading !== appName ? `${heading} · ${appName}` : appName;
  }, [heading, appName]);
}
