import type { PageProps } from '../../routes.js';
import { useT } from '../../i18n/index.js';

/** Placeholders until these pages are built. */
export function CollectionsPage(_props: PageProps) {
  return <p>{useT().soon}</p>;
}
export function TagsPage(_props: PageProps) {
  return <p>{useT().soon}</p>;
}
export function PartnersPage(_props: PageProps) {
  return <p>{useT().soon}</p>;
}
