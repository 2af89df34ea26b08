import type { PageProps } from '../../session.js';
import { ResourcePage } from './resource-page.js';
import { RESOURCES } from './resources.js';

/** /collections: every link belongs to one. */
export function CollectionsPage({ workspace }: PageProps) {
  return <ResourcePage resource={RESOURCES.collections} canWrite={workspace.scopes.includes('collectionsWrite')} />;
}

/** /tags: labels on links, each with an optional colour. */
export function TagsPage({ workspace }: PageProps) {
  return <ResourcePage resource={RESOURCES.tags} canWrite={workspace.scopes.includes('tagsWrite')} />;
}

/** /partners: who promotes the links (name, email, image address). */
export function PartnersPage({ workspace }: PageProps) {
  return <ResourcePage resource={RESOURCES.partners} canWrite={workspace.scopes.includes('partnersWrite')} />;
}
