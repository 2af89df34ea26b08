/**
 * Who is signed in and what they may do, as GET /api/me tells it: the types every page is
 * given. Kept apart from routes.ts (which imports every page), so a page importing these
 * imports no other page.
 */
import type { paths } from './api/schema.js';

export type Me = paths['/api/me']['get']['responses'][200]['content']['application/json'];
export type Workspace = Me['workspaces'][number];
export type Role = Workspace['role'];
/** A scope of the API (the server's list, through the generated OpenAPI types). */
export type Scope = Workspace['scopes'][number];
/** A link feature a plan may allow (expiration, password, cloaking, device and geo targeting). */
export type Feature = Workspace['features'][number];

/** What every signed-in page is given: who is signed in, the chosen workspace, their role there, the path's parameters. */
export interface PageProps {
  me: Me;
  workspaceId: string;
  /** The chosen workspace of `me` (its plan's features, the role's scopes, its bulk maximum). */
  workspace: Workspace;
  role: Role;
  params: Record<string, string>;
}

/** The chosen workspace as /api/me tells it (its scopes, its plan's features, its bulk maximum). */
export function workspaceOf(me: Me, id: string): Workspace | undefined {
  return me.workspaces.find((w) => w.id === id);
}

/** Every scope of the API, in the order the server lists them with their endpoints. */
export function allScopes(me: Me): Scope[] {
  return Object.keys(me.scopeEndpoints) as Scope[];
}
