import { SCOPES, type Scope } from '../../core/scopes.js';

export const ROLES = ['owner', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** The scopes only an owner's role has (operations.md, rules before §11: member and viewer unchanged). */
const OWNER_ONLY_SCOPES: readonly Scope[] = ['webhooksRead', 'webhooksWrite'];
const VIEWER_SCOPES: readonly Scope[] = ['linksRead', 'collectionsRead', 'tagsRead', 'analyticsRead', 'customersRead', 'partnersRead', 'programsRead'];

/** operations.md §7: the scopes a role has in its workspace — owner all sixteen, member all but the webhooks' two, viewer the seven reads. */
export const ROLE_SCOPES: Readonly<Record<Role, ReadonlySet<Scope>>> = {
  owner: new Set(SCOPES),
  member: new Set(SCOPES.filter((s) => !OWNER_ONLY_SCOPES.includes(s))),
  viewer: new Set(VIEWER_SCOPES),
};
