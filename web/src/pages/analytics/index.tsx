import type { PageProps } from '../../routes.js';
import { useT } from '../../i18n/index.js';

/** Placeholder until this page is built. */
export function AnalyticsPage(_props: PageProps) {
  const t = useT();
  return <p>{t.soon}</p>;
}
