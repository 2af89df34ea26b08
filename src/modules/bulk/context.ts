import type { FastifyRequest } from 'fastify';
import type { Conn } from '../../db/connect.js';
import type { Ctx } from './service.js';

/** What a routes plugin of a workspace resource is given. */
export interface ResourceDeps {
  db: Conn;
  /** Where analytics reads go: a read replica (DATABASE_READ_URL), or `db` when absent. */
  analyticsDb?: Conn;
  clock: () => Date;
}

/** What a service needs to act for the caller of a scoped route: its workspace, the databases, the time. */
export function serviceContext(deps: ResourceDeps, request: FastifyRequest): Ctx {
  if (!request.principal) throw new Error('a scoped route ran without a principal');
  return { db: deps.db, analyticsDb: deps.analyticsDb ?? deps.db, workspace: request.principal.workspace, now: deps.clock() };
}
