import type { PageProps } from '../../session.js';
import { ResourcePage } from './resource-page.js';
import { RESOURCES } from './resources.js';

/** /collections: every link belongs to one. */
export function CollectionsPage({ role }: PageProps) {
  return <ResourcePage resource={RESOURCES.collections} role={role} />;
}

/** /tags: labels on links, each with an optional colour. */
export function TagsPage({ role }: PageProps) {
  return <ResourcePage resource={RESOURCES.tags} role={role} />;
}

/** /partners: who promotes the links (name, email, image address). */
export function PartnersPage({ role }: PageProps) {
  return <ResourcePage resource={RESOURCES.partners} role={role} />;
}
