import type { PageProps } from '../../routes.js';
import { useT } from '../../i18n/index.js';

/** Placeholder until this page is built. */
export function ConversionsPage(_props: PageProps) {
  const t = useT();
  return <p>{t.soon}</p>;
}
