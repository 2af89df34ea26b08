import { SCOPES, type Scope } from '../../core/scopes.js';

export const ROLES = ['owner', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const VIEWER_SCOPES: readonly Scope[] = ['linksRead', 'collectionsRead', 'tagsRead', 'analyticsRead', 'customersRead', 'partnersRead'];

/** operations.md §7: the scopes a role has in its workspace. */
export const ROLE_SCOPES: Readonly<Record<Role, ReadonlySet<Scope>>> = {
  owner: new Set(SCOPES),
  member: new Set(SCOPES),
  viewer: new Set(VIEWER_SCOPES),
};
