import type { Ctx } from '../../core/context.js';
import type { Scope } from '../../core/scopes.js';
import { workspaceClickPages } from '../analytics/service.js';
import { workspaceCollectionPages } from '../collections/service.js';
import { workspaceCustomerPages } from '../customers/service.js';
import { workspaceEventPages, type EventsDeps } from '../events/service.js';
import { workspaceLinkPages, type LinkDeps } from '../links/service.js';
import { workspacePartnerPages } from '../partners/service.js';
import { workspaceTagPages } from '../tags/service.js';

/** A key must be able to read everything the export holds. */
export const EXPORT_SCOPES: readonly Scope[] = ['collectionsRead', 'tagsRead', 'partnersRead', 'linksRead', 'customersRead', 'analyticsRead'];

export interface ExportDeps extends EventsDeps {
  links: LinkDeps;
}

/** One NDJSON chunk for a page: each record a line, its `type` first. */
function lines(type: string, page: object[]): string {
  return page.map((record) => `${JSON.stringify({ type, ...record })}\n`).join('');
}

/**
 * The workspace as NDJSON chunks, one page of one kind each, in the order an importer resolves
 * references in one pass: collections, tags, partners, links, customers, clicks, leads, sales.
 * Every kind is read in keyset pages (after the last row's (created_at, seq), never OFFSET, so
 * the thousandth page costs what the first does), each only as the consumer pulls, so memory
 * holds one page whatever the size.
 */
export async function* exportWorkspace({ ctx, deps }: { ctx: Ctx; deps: ExportDeps }): AsyncGenerator<string> {
  const kinds: [string, AsyncGenerator<object[]>][] = [
    ['collection', workspaceCollectionPages({ ctx })],
    ['tag', workspaceTagPages({ ctx })],
    ['partner', workspacePartnerPages({ ctx })],
    ['link', workspaceLinkPages({ ctx, deps: deps.links })],
    ['customer', workspaceCustomerPages({ ctx })],
    ['click', workspaceClickPages({ ctx })],
    ['lead', workspaceEventPages({ ctx, deps, input: { type: 'lead' } })],
    ['sale', workspaceEventPages({ ctx, deps, input: { type: 'sale' } })],
  ];
  for (const [type, pages] of kinds) {
    for await (const page of pages) if (page.length > 0) yield lines(type, page);
  }
}
