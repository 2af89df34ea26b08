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
  role: Role;
  params: Record<string, string>;
}

/** The chosen workspace as /api/me tells it (its scopes, its plan's features, its bulk maximum). */
export function workspaceOf(me: Me, id: string): Workspace | undefined {
  return me.workspaces.find((w) => w.id === id);
}
