import type { Ctx } from '../../core/context.js';
import type { ListParams } from '../../core/list-params.js';
import type { Scope } from '../../core/scopes.js';
import { workspaceClickPages } from '../analytics/service.js';
import { listCollections } from '../collections/service.js';
import { listCustomers } from '../customers/service.js';
import { workspaceEventPages, type EventsDeps } from '../events/service.js';
import { listLinks, type LinkDeps } from '../links/service.js';
import { listPartners } from '../partners/service.js';
import { listTags } from '../tags/service.js';

/** A key must be able to read everything the export holds. */
export const EXPORT_SCOPES: readonly Scope[] = ['collectionsRead', 'tagsRead', 'partnersRead', 'linksRead', 'customersRead', 'analyticsRead'];

export interface ExportDeps extends EventsDeps {
  links: LinkDeps;
}

/** Rows read from the database at a time, per kind. */
export const EXPORT_PAGE = 1000;

/** A list service read page after page (oldest first) until a short page ends it. */
async function* listPages<T>(list: (page: ListParams) => Promise<T[]>): AsyncGenerator<T[]> {
  for (let skip = 0; ; skip += EXPORT_PAGE) {
    const page = await list({ take: EXPORT_PAGE, skip, sort: 'asc' });
    yield page;
    if (page.length < EXPORT_PAGE) return;
  }
}

/** One NDJSON chunk for a page: each record a line, its `type` first. */
function lines(type: string, page: object[]): string {
  return page.map((record) => `${JSON.stringify({ type, ...record })}\n`).join('');
}

/**
 * The workspace as NDJSON chunks, one page of one kind each, in the order an importer resolves
 * references in one pass: collections, tags, partners, links, customers, clicks, leads, sales.
 * Pages are read only as the consumer pulls, so memory holds one page whatever the size.
 */
export async function* exportWorkspace({ ctx, deps }: { ctx: Ctx; deps: ExportDeps }): AsyncGenerator<string> {
  const kinds: [string, AsyncGenerator<object[]>][] = [
    ['collection', listPages((p) => listCollections({ ctx, input: p }))],
    ['tag', listPages((p) => listTags({ ctx, input: p }))],
    ['partner', listPages((p) => listPartners({ ctx, input: p }))],
    ['link', listPages((p) => listLinks({ ctx, deps: deps.links, input: p }))],
    ['customer', listPages((p) => listCustomers({ ctx, input: p }))],
    ['click', workspaceClickPages({ ctx })],
    ['lead', workspaceEventPages({ ctx, deps, input: { type: 'lead' } })],
    ['sale', workspaceEventPages({ ctx, deps, input: { type: 'sale' } })],
  ];
  for (const [type, pages] of kinds) {
    for await (const page of pages) if (page.length > 0) yield lines(type, page);
  }
}
