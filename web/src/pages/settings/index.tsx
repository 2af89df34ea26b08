import type { PageProps } from '../../routes.js';
import { useT } from '../../i18n/index.js';

/** Placeholders until these pages are built. */
export function GeneralSettings(_props: PageProps) {
  return <p>{useT().soon}</p>;
}
export function MembersSettings(_props: PageProps) {
  return <p>{useT().soon}</p>;
}
export function KeysSettings(_props: PageProps) {
  return <p>{useT().soon}</p>;
}
export function OAuthAppsSettings(_props: PageProps) {
  return <p>{useT().soon}</p>;
}
export function ConnectedAppsSettings(_props: PageProps) {
  return <p>{useT().soon}</p>;
}
