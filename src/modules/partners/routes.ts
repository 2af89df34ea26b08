import type { FastifyRequest } from 'fastify';
import { routesPlugin } from '../../http/types.js';
import type { ResourceDeps } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import type { Scope } from '../../core/scopes.js';
import { ownerForMoney, type RoleLookup } from '../../http/auth.js';
import { registerBulkRoutes } from '../../http/bulk-routes.js';
import { Partner, PartnerCreate, PartnerUpsert, PROGRAM_FIELDS } from './schemas.js';
import { partnerServiceWith, type PartnerDeps } from './service.js';

export type PartnerRouteDeps = ResourceDeps & { roleOf: RoleLookup; partners: PartnerDeps };

/** The scopes an entry setting a program field needs (operations.md §18 Scopes). */
const PROGRAM_SCOPES: readonly Scope[] = ['partnersWrite', 'programsWrite'];
/** Statuses whose setting is a money act: by a person, only an owner. */
const MONEY_STATUSES = new Set(['approved', 'banned']);

const WRITE_NOTE =
  'An entry setting `status`, `groupId`, `couponCodes`, `referralKey` or `tenantId` needs `programsWrite` as well (403 `missing_scopes` listing every missing scope); ' +
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

export const partnerRoutes = routesPlugin<PartnerRouteDeps>('partners', (app, deps) => {
  registerBulkRoutes(app, deps, {
    path: '/api/partners',
    tag: 'Partners',
    readScope: 'partnersRead',
    writeScope: 'partnersWrite',
    record: Partner,
    createItem: PartnerCreate,
    upsertItem: PartnerUpsert,
    deleteNote: 'Soft delete: the partners disappear from GET and stay in history, archived (they stop earning).',
    writeGuard: programGuard(deps.roleOf),
    writeNote: WRITE_NOTE,
    service: partnerServiceWith(deps.partners),
  });
});
