import type { Ctx } from '../modules/bulk/service.js';
import type { AppDeps } from './app.js';
import type { Principal } from './auth.js';

/** What a service needs to act for the caller of a scoped route: its workspace, the database, the time. */
export function serviceContext(deps: AppDeps, principal: Principal | undefined): Ctx {
  if (!principal) throw new Error('a scoped route ran without a principal');
  return { db: deps.database.db, workspace: principal.workspace, now: deps.clock() };
}
