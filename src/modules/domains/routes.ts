import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { baseContext, serviceContext, type ResourceDeps } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { adminGuard, ownerBySession as ownerBySessionOf, type RoleLookup } from '../../http/auth.js';
import { addSchemaOnce, DeletedIds, ErrorBody } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { AllowedQuery, Allowed, Domain, DomainCreate, DomainListQuery, DomainParam, DomainUpdate } from './schemas.js';
import {
  claimDomain,
  deleteDomain,
  forceVerifyDomain,
  getDomain,
  listAllDomains,
  listDomains,
  normalizeHost,
  updateDomain,
  verifyDomain,
  type DomainDeps,
} from './service.js';

const tags = ['Domains'];
const read = { scope: 'linksRead' } as const;
const write = { scope: 'linksWrite' } as const;

// "Owner" (operations.md, rules before §11) and §13's "an owner claims a host".
const OWNER_NOTE =
  'Extension. Owner: with a session, only an owner of the workspace (X-Workspace-Id) may call it (403 owner_required for members and viewers). ' +
  "API keys, human tokens and OAuth tokens act by the scope named below: a claim routes visitors to the workspace's links, so changing claims needs the links write scope and reading them the links read scope (no new scope: §11's rules add none).";

export type DomainRouteDeps = ResourceDeps & { domains: DomainDeps; roleOf: RoleLookup; isActiveHost: (host: string) => boolean };

/** Claimed hosts of a workspace (operations.md §13), and the TLS edge's question. */
export const domainRoutes = routesPlugin<DomainRouteDeps>('domains', (app, deps) => {
  addSchemaOnce(app, Domain);
  const ownerBySession = ownerBySessionOf(deps.roleOf);
  const ctx = (req: FastifyRequest) => serviceContext(deps, req);
  const domain = Type.Ref(Domain);

  app.post(
    '/api/domains',
    {
      config: write,
      preHandler: ownerBySession,
      schema: {
        operationId: 'createDomain',
        tags,
        summary: 'Claim a host',
        description: `The claim starts pending: add the TXT record \`verification.txtName\` with \`verification.txtValue\`, then verify. Several workspaces may claim one host while pending; the first verified holds it, and only active hosts route. ${OWNER_NOTE}`,
        body: DomainCreate,
        response: { 201: domain },
      },
    },
    async (req, reply) => reply.status(201).send(await claimDomain({ ctx: ctx(req), deps: deps.domains, input: req.body })),
  );

  app.get(
    '/api/domains',
    {
      config: read,
      preHandler: ownerBySession,
      schema: {
        operationId: 'listDomains',
        tags,
        summary: 'Claimed hosts',
        description: `Newest first. ${OWNER_NOTE}`,
        querystring: DomainListQuery,
        response: { 200: Type.Array(domain) },
      },
    },
    async (req) => listDomains({ ctx: ctx(req), input: req.query as never }),
  );

  app.get(
    '/api/domains/:id',
    {
      config: read,
      preHandler: ownerBySession,
      schema: { operationId: 'getDomain', tags, summary: 'A claimed host', description: OWNER_NOTE, params: DomainParam, response: { 200: domain } },
    },
    async (req) => getDomain({ ctx: ctx(req), input: { id: req.params.id } }),
  );

  app.patch(
    '/api/domains/:id',
    {
      config: write,
      preHandler: ownerBySession,
      schema: {
        operationId: 'updateDomain',
        tags,
        summary: 'Change where a host sends visitors, or make it the default domain',
        description: `At least one of rootUrl, notFoundUrl (null clears), default. ${OWNER_NOTE}`,
        params: DomainParam,
        body: DomainUpdate,
        response: { 200: domain },
      },
    },
    async (req) => updateDomain({ ctx: ctx(req), deps: deps.domains, input: { ...req.body, id: req.params.id } }),
  );

  app.delete(
    '/api/domains/:id',
    {
      config: write,
      preHandler: ownerBySession,
      schema: {
        operationId: 'deleteDomain',
        tags,
        summary: 'Give up a host',
        description: `The host stops routing at once on every instance, and the workspace's aliases on it are removed from its links. ${OWNER_NOTE}`,
        params: DomainParam,
        response: { 200: DeletedIds },
      },
    },
    async (req) => ({
      deletedIds: [await deleteDomain({ ctx: ctx(req), deps: deps.domains, input: { id: req.params.id, workspaceId: ctx(req).workspace.id } })],
    }),
  );

  app.post(
    '/api/domains/:id/verify',
    {
      config: write,
      preHandler: ownerBySession,
      schema: {
        operationId: 'verifyDomain',
        tags,
        summary: 'Verify a claim by its TXT record',
        description: `Looks up the TXT record \`_linktrail.<host>\` (through the server's resolver, or DNS_SERVERS). Found with the claim's value: the claim becomes active (200) — unless another workspace verified the host first (400 \`host_taken\`) — and the aliases other workspaces stored on the host are removed. Otherwise the claim stays pending and the answer is a 400 saying what was found: \`domain_txt_missing\` (no TXT record), \`domain_txt_mismatch\` (records without the value), \`domain_dns_failed\` (the lookup failed). An active claim answers 200 as it is. ${OWNER_NOTE}`,
        params: DomainParam,
        response: { 200: domain },
      },
    },
    async (req) => verifyDomain({ ctx: ctx(req), deps: deps.domains, input: { id: req.params.id } }),
  );

  app.get(
    '/internal/domains/allowed',
    {
      config: { public: true },
      schema: {
        operationId: 'isDomainAllowed',
        tags,
        summary: 'May the edge get a certificate for this host?',
        description:
          "For a TLS proxy's on-demand certificates (Caddy's `ask`): 200 when `domain` is an active claimed host, 404 otherwise. No credential; answered from memory.",
        querystring: AllowedQuery,
        response: { 200: Allowed, 404: Type.Ref(ErrorBody) },
      },
    },
    async (req) => {
      const verdict = normalizeHost(req.query.domain, new Set());
      if (!verdict.ok || !deps.isActiveHost(verdict.host)) throw notFound('domain', req.query.domain.slice(0, 300));
      return { host: verdict.host };
    },
  );
});

const adminErrors = { 400: Type.Ref(ErrorBody), 401: Type.Ref(ErrorBody), 404: Type.Ref(ErrorBody) };
const security = [{ adminToken: [] }];

/** The operator's side (register with prefix `/admin`; isolated: its own guard). */
export const domainAdminRoutes = routesPlugin<{ db: ResourceDeps['db']; clock: () => Date; adminToken: string; domains: DomainDeps }>(
  'domains-admin',
  (app, deps) => {
    const ctx = baseContext(deps);
    addSchemaOnce(app, Domain);
    app.addHook('onRequest', adminGuard(deps.adminToken));
    const opTags = ['Operator'];

    app.get(
      '/domains',
      {
        schema: {
          operationId: 'adminListDomains',
          tags: opTags,
          security,
          summary: 'Every claimed host',
          description: 'Claims of every workspace, newest first.',
          querystring: DomainListQuery,
          response: { 200: Type.Array(Type.Ref(Domain)), ...adminErrors },
        },
      },
      async (req) => listAllDomains({ ctx: ctx(req), input: req.query as never }),
    );

    app.post(
      '/domains/:id/verify',
      {
        schema: {
          operationId: 'adminVerifyDomain',
          tags: opTags,
          security,
          summary: 'Verify a claim without its TXT record',
          description: 'The operator vouches for the claim: it becomes active (400 `host_taken` while another workspace holds the host).',
          params: DomainParam,
          response: { 200: Type.Ref(Domain), ...adminErrors },
        },
      },
      async (req) => forceVerifyDomain({ ctx: ctx(req), deps: deps.domains, input: { id: req.params.id } }),
    );

    app.delete(
      '/domains/:id',
      {
        schema: {
          operationId: 'adminDeleteDomain',
          tags: opTags,
          security,
          summary: 'Remove a claim',
          description: "Any workspace's claim; its aliases on the host are removed.",
          params: DomainParam,
          response: { 200: DeletedIds, ...adminErrors },
        },
      },
      async (req) => ({ deletedIds: [await deleteDomain({ ctx: ctx(req), deps: deps.domains, input: { id: req.params.id, workspaceId: null } })] }),
    );
  },
  { isolated: true },
);
