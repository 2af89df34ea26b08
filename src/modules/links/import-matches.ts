import type { Ctx } from '../../core/context.js';
import { toLink, type Link, type LinkSettings } from './record.js';
import { aliasOwners, externalIdHolders, linkStore, linksByDestination, linksByShortId } from './store.js';

/** What an import looks its rows up by (operations.md §13 "Idempotent"). */
export interface ImportKeys {
  aliases: { host: string; path: string }[];
  externalIds: string[];
  destinations: { url: string; title: string }[];
  /** Short ids of this server's own short URLs (a file exported here). */
  shortIds?: string[];
}

export interface ImportMatches {
  /** `host + path` → the link holding the alias, and its workspace (aliases are server-wide). */
  aliasOwners: Map<string, { linkId: string; workspaceId: string }>;
  byExternalId: Map<string, string>;
  /** `url + '\n' + title` → link id (the oldest when several match). */
  byDestination: Map<string, string>;
  /** This workspace's links by short id. */
  byShortId: Map<string, string>;
  /** Every matched link of this workspace, as the API shows it. */
  links: Map<string, Link>;
}

export const destinationKey = (url: string, title: string | undefined | null): string => `${url}\n${title ?? ''}`;

/** The links an import batch's rows may already be: five statements whatever the batch's size. */
export async function importMatches({ ctx, deps, input }: { ctx: Ctx; deps: LinkSettings; input: ImportKeys }): Promise<ImportMatches> {
  const ws = ctx.workspace.id;
  const owners = await aliasOwners(ctx.db, input.aliases);
  const external = await externalIdHolders(ctx.db, ws, input.externalIds);
  const destinations = await linksByDestination(ctx.db, ws, input.destinations);
  const own = await linksByShortId(ctx.db, ws, input.shortIds ?? []);
  const ids = new Set([
    ...owners.filter((o) => o.workspaceId === ws).map((o) => o.linkId),
    ...external.map((e) => e.id),
    ...destinations.map((d) => d.id),
    ...own.map((o) => o.id),
  ]);
  const links = new Map((await linkStore.byIds(ctx.db, ws, [...ids])).map((row) => [row.id, toLink(row, deps)]));
  const byDestination = new Map<string, string>();
  for (const d of destinations) {
    const key = destinationKey(d.url, d.title);
    const seen = byDestination.get(key);
    if (seen === undefined || links.get(d.id)!.createdAt < links.get(seen)!.createdAt) byDestination.set(key, d.id);
  }
  return {
    aliasOwners: new Map(owners.map((o) => [`${o.host}${o.path}`, { linkId: o.linkId, workspaceId: o.workspaceId }])),
    byExternalId: new Map(external.map((e) => [e.externalId, e.id])),
    byDestination,
    byShortId: new Map(own.map((o) => [o.shortId, o.id])),
    links,
  };
}
