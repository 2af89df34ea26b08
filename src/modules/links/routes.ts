import { routesPlugin } from '../../http/types.js';
import type { ResourceDeps } from '../../core/context.js';
import { registerBulkRoutes } from '../../http/bulk-routes.js';
import { serviceContext } from '../../core/context.js';
import { exactJson, hasBigint } from '../../core/exact-json.js';
import { Link, LINK_LIST_DESCRIPTION, LinkCreate, LinkListQuery, LinkUpsert, TOTAL_COUNT_HEADER } from './schemas.js';
import { createLinks, deleteLinks, listLinks, listLinksWithTotal, upsertLinks, type LinkDeps, type LinkListQuery as Query } from './service.js';

const PATH = '/api/links';

const UTF8 = new TextEncoder();
/**
 * A page's JSON as its UTF-8 bytes, encoded once. Given the string, Fastify counts its bytes for
 * Content-Length and Node then encodes it to write it: two passes over megabytes where one does
 * (BENCHMARKS.md, issue 48).
 */
function utf8(json: string): Buffer {
  const bytes = UTF8.encode(json);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A page with figures, or above this many links, is an expensive request. */
const HEAVY_TAKE = 1000;
const isHeavyList = (q: Query): boolean => q.withStats === true || q.take > HEAVY_TAKE;

export const linkRoutes = routesPlugin<ResourceDeps & { links: LinkDeps }>('links', (app, { links, ...deps }) => {
  // The shared bulk GET answers the array only; this list also answers X-Total-Count (and says
  // so in its OpenAPI description), so its handler and 200 response are this module's own.
  app.addHook('onRoute', (route) => {
    // HEAD too: it answers the GET's headers (X-Total-Count, Content-Length) without the body.
    if (route.url !== PATH || (route.method !== 'GET' && route.method !== 'HEAD')) return;
    const schema = (route.schema ??= {}) as { description?: string; response?: Record<string, unknown> };
    // The scope note is already there; the HEAD route shares this schema object.
    if (!schema.description?.includes(LINK_LIST_DESCRIPTION)) schema.description = [LINK_LIST_DESCRIPTION, schema.description].filter(Boolean).join('\n\n');
    const ok = schema.response?.[200] as object | undefined;
    if (ok) schema.response![200] = { ...ok, headers: { ...(ok as { headers?: object }).headers, ...TOTAL_COUNT_HEADER } };
    // Figures summed over every link, or thousands of links a page: bounded per workspace (http/heavy-requests.ts).
    route.config = { ...route.config, heavy: (req) => isHeavyList(req.query as Query) };
    route.handler = async (req, reply) => {
      const input = { ...(req.query as Query), scopes: req.principal!.scopes };
      const { links: page, total } = await listLinksWithTotal({ ctx: serviceContext(deps, req), deps: links, input });
      if (total !== undefined) void reply.header('x-total-count', String(total));
      // Link records are built field by field (toLink), so the schema's serializer has nothing to
      // strip. V8's JSON.stringify writes one flat string; fast-json-stringify's thousands of
      // concatenations leave a rope that Content-Length's byte count then flattens (a 4.4 MB page
      // of 5,000 links: 18.5 against 14.7 ms alone, and less garbage; the list 106–113 → 96–101 ms,
      // BENCHMARKS.md). The bytes are the same (test/modules/links/list-serialization.test.ts).
      // Money past 2^53 (a bigint) is written by hand, exactly, as GET /api/analytics does.
      const serialize = input.withStats && hasBigint(page) ? exactJson : JSON.stringify;
      return reply.type('application/json; charset=utf-8').send(utf8(serialize(page)));
    };
  });
  registerBulkRoutes<Query>(app, deps, {
    path: PATH,
    tag: 'Links',
    readScope: 'linksRead',
    writeScope: 'linksWrite',
    record: Link,
    createItem: LinkCreate,
    upsertItem: LinkUpsert,
    listQuery: LinkListQuery,
    deleteNote:
      'Soft delete: the links disappear from GET and their short links stop resolving; clicks and conversions stay. ' +
      "An approved partner's default link (the partner's `defaultLinkId`) cannot be deleted while the partner is approved: 400 `default_link` naming the item, and nothing is deleted.",
    service: {
      list: ({ ctx, input }) => listLinks({ ctx, deps: links, input }),
      create: ({ ctx, input }) => createLinks({ ctx, deps: links, input }),
      upsert: ({ ctx, input }) => upsertLinks({ ctx, deps: links, input }),
      remove: ({ ctx, input }) => deleteLinks({ ctx, deps: links, input }),
    },
  });
});
