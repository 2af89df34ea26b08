import { Type, type TSchema } from '@sinclair/typebox';
import { BulkOf, DeletedIds, IdList, ListQuery } from './schemas.js';
import { type ListParams } from '../core/list-params.js';
import type { Scope } from '../core/scopes.js';
import type { App } from './types.js';
import type { preHandlerAsyncHookHandler } from 'fastify';
import { serviceContext, type ResourceDeps } from '../core/context.js';
import type { Ctx } from '../core/context.js';
import type { Item } from '../core/items.js';

export interface BulkRouteSpec<Q extends ListParams = ListParams> {
  path: string;
  tag: string;
  readScope: Scope;
  writeScope: Scope;
  /** The record schema; must carry an $id so OpenAPI names it. */
  record: TSchema;
  createItem: TSchema;
  upsertItem: TSchema;
  listQuery?: TSchema;
  /** Further answers of POST and PUT (a state conflict's 409), declared in the document. */
  writeResponses?: Record<number, TSchema>;
  deleteNote: string;
  /** Checks of POST and PUT beyond the write scope, once the body is valid (e.g. scopes some fields need). */
  writeGuard?: preHandlerAsyncHookHandler;
  /** What POST and PUT add to their descriptions (what the guard asks). */
  writeNote?: string;
  service: {
    list(op: { ctx: Ctx; input: Q }): Promise<unknown[]>;
    create(op: { ctx: Ctx; input: Item[] }): Promise<unknown[]>;
    upsert(op: { ctx: Ctx; input: Item[] }): Promise<unknown[]>;
    remove(op: { ctx: Ctx; input: string[] }): Promise<string[]>;
  };
}

/** GET, POST, PUT and DELETE of one bulk resource, with thin handlers over its service. */
export function registerBulkRoutes<Q extends ListParams>(app: App, deps: ResourceDeps, spec: BulkRouteSpec<Q>): void {
  const tags = [spec.tag];
  // listLinks, createLinks, upsertLinks, deleteLinks: the names generated clients and the SDK use.
  const named = spec.tag.replace(/\s+/g, '');
  const list = Type.Array(Type.Ref(spec.record));
  app.addSchema(spec.record);

  app.get(
    spec.path,
    {
      config: { scope: spec.readScope },
      schema: {
        operationId: `list${named}`,
        tags,
        summary: `List ${spec.tag.toLowerCase()}`,
        querystring: spec.listQuery ?? ListQuery,
        response: { 200: list },
      },
    },
    async (req) => spec.service.list({ ctx: serviceContext(deps, req), input: req.query as Q }),
  );

  app.post(
    spec.path,
    {
      config: { scope: spec.writeScope },
      ...(spec.writeGuard ? { preHandler: spec.writeGuard } : {}),
      schema: {
        operationId: `create${named}`,
        tags,
        summary: `Create ${spec.tag.toLowerCase()}`,
        description: `Atomic: one bad item fails the request with 400 naming \`[index].field\`, and nothing is written.${spec.writeNote ? ` ${spec.writeNote}` : ''}`,
        body: BulkOf(spec.createItem, 'Items to create, 1 to the plan maximum'),
        response: { 201: list, ...spec.writeResponses },
      },
    },
    async (req, reply) => reply.status(201).send(await spec.service.create({ ctx: serviceContext(deps, req), input: req.body as Item[] })),
  );

  app.put(
    spec.path,
    {
      config: { scope: spec.writeScope },
      ...(spec.writeGuard ? { preHandler: spec.writeGuard } : {}),
      schema: {
        operationId: `upsert${named}`,
        tags,
        summary: `Upsert ${spec.tag.toLowerCase()}`,
        description:
          'Entries with `id` update that record (omitted fields stay, null clears optional fields); entries without `id` are inserted. Results in input order. Atomic.' +
          (spec.writeNote ? ` ${spec.writeNote}` : ''),
        body: BulkOf(spec.upsertItem, 'Entries to update (with id) or insert (without id)'),
        response: { 200: list, ...spec.writeResponses },
      },
    },
    async (req) => spec.service.upsert({ ctx: serviceContext(deps, req), input: req.body as Item[] }),
  );

  app.delete(
    spec.path,
    {
      config: { scope: spec.writeScope },
      schema: {
        operationId: `delete${named}`,
        tags,
        summary: `Delete ${spec.tag.toLowerCase()}`,
        description: `${spec.deleteNote} Unknown, invalid, repeated or already deleted ids are a 400 and nothing is deleted.`,
        body: IdList,
        response: { 200: DeletedIds },
      },
    },
    async (req) => ({ deletedIds: await spec.service.remove({ ctx: serviceContext(deps, req), input: req.body as string[] }) }),
  );
}
