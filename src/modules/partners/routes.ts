import type { FastifyRequest } from 'fastify';
import { routesPlugin } from '../../http/types.js';
import { serviceContext, type ResourceDeps } from '../../core/context.js';
import { exactJson, hasBigint } from '../../core/exact-json.js';
import { AppError } from '../../core/errors.js';
import type { Scope } from '../../core/scopes.js';
import { ownerForMoney, type RoleLookup } from '../../http/auth.js';
import { registerBulkRoutes } from '../../http/bulk-routes.js';
import { Partner, PartnerCreate, PartnerUpsert, PROGRAM_FIELDS } from './schemas.js';
import { listPartners, partnerServiceWith, type PartnerDeps, type PartnerListQuery as Query } from './service.js';
import { PARTNER_STATS_DESCRIPTION, PartnerListQuery } from './stats-schemas.js';

export type PartnerRouteDeps = ResourceDeps & { roleOf: RoleLookup; partners: PartnerDeps };

/** The scopes an entry setting a program field needs (operations.md §18 Scopes). */
const PROGRAM_SCOPES: readonly Scope[] = ['partnersWrite', 'programsWrite'];
/** Statuses whose setting is a money act: by a person, only an owner. */
const MONEY_STATUSES = new Set(['approved', 'banned']);

const WRITE_NOTE =
  "An entry setting `status`, `groupId`, `couponCodes`, `referralKey`, `tenantId` or `userId` (null: unlinks the partner's person and clears their payout details) needs `programsWrite` as well (403 `missing_scopes` listing every missing scope); " +
  'setting `status` to `approved` or `banned` is a money act: a person acting by session, human token or OAuth grant must be an owner of the workspace ' +
  '(403 `owner_required`); an API key acts by its scopes.';

/** The program's part of a partner write: its scopes, and the owner for a money act. */
function programGuard(roleOf: RoleLookup) {
  const owner = ownerForMoney(roleOf);
  return async (request: FastifyRequest): Promise<void> => {
    const entries = (Array.isArray(request.body) ? request.body : []) as Record<string, unknown>[];
    if (!entries.some((e) => PROGRAM_FIELDS.some((f) => e[f] !== undefined))) return;
    const missing = PROGRAM_SCOPES.filter((s) => !request.principal!.scopes.has(s));
    if (missing.length) throw new AppError('missing_scopes', { scopes: missing.join(', ') }, { missingScopes: [...missing] });
    if (entries.some((e) => MONEY_STATUSES.has(e.status as string))) await owner(request);
  };
}

const PATH = '/api/partners';

export const partnerRoutes = routesPlugin<PartnerRouteDeps>('partners', (app, deps) => {
  // The shared bulk GET passes the query alone; withStats needs the caller's scopes (analyticsRead,
  // and programsRead for the earnings) and is an expensive request, so this list's handler is its own.
  app.addHook('onRoute', (route) => {
    // HEAD too: its route is made apart, with the shared handler.
    if (route.url !== PATH || (route.method !== 'GET' && route.method !== 'HEAD')) return;
    const schema = (route.schema ??= {}) as { description?: string };
    // The scope note is already there; the HEAD route shares this schema object.
    if (!schema.description?.includes(PARTNER_STATS_DESCRIPTION))
      schema.description = [PARTNER_STATS_DESCRIPTION, schema.description].filter(Boolean).join('\n\n');
    // Figures summed over every link of the page's partners: bounded per workspace as links' withStats (http/heavy-requests.ts).
    route.config = { ...route.config, heavy: (req) => (req.query as Query).withStats === true };
    route.handler = async (req, reply) => {
      const page = await listPartners({ ctx: serviceContext(deps, req), input: { ...(req.query as Query), scopes: req.principal!.scopes } });
      // Revenue past 2^53 (a bigint) is written by hand, exactly, as GET /api/links?withStats does.
      if (hasBigint(page)) return reply.type('application/json; charset=utf-8').serializer(exactJson).send(page);
      return page;
    };
  });
  registerBulkRoutes<Query>(app, deps, {
    path: PATH,
    tag: 'Partners',
    readScope: 'partnersRead',
    writeScope: 'partnersWrite',
    record: Partner,
    listQuery: PartnerListQuery,
    createItem: PartnerCreate,
    upsertItem: PartnerUpsert,
    deleteNote: 'Soft delete: the partners disappear from GET and stay in history, archived (they stop earning).',
    writeGuard: programGuard(deps.roleOf),
    writeNote: WRITE_NOTE,
    service: partnerServiceWith(deps.partners),
  });
});
