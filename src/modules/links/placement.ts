/**
 * Where a link can go, asked before writing it: the hosts a workspace may put links on, and
 * whether a key is free there — what the link form shows as one types. The answer is the one
 * POST or PUT /api/links would give at that moment (the same checks, read-only).
 */
import type { Ctx } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import { activeHostsOfWorkspace } from '../domains/service.js';
import { checkKeys, placeLinks, type KeyEntry } from './branded-writes.js';
import { parseKey } from './keys.js';
import { shortLinkHost } from './record.js';
import { linksForUpdate } from './store.js';

export interface LinkDomain {
  domain: string;
  default: boolean;
  /** false: the service's short-link host (SHORT_LINK_BASE_URL). */
  claimed: boolean;
  /** A key's shortUrl is this followed by the key. */
  prefix: string;
}

/** The short-link host and the workspace's active claimed hosts; the default (for new links) first. */
export async function linkDomains({ ctx, shortLinkBaseUrl }: { ctx: Ctx; shortLinkBaseUrl: string }): Promise<LinkDomain[]> {
  const claimed = await activeHostsOfWorkspace({ ctx });
  const own: LinkDomain = {
    domain: shortLinkHost(shortLinkBaseUrl),
    default: !claimed.some((h) => h.isDefault),
    claimed: false,
    prefix: `${shortLinkBaseUrl}/`,
  };
  const hosts = claimed.map((h) => ({ domain: h.host, default: h.isDefault, claimed: true, prefix: `https://${h.host}/` }));
  return own.default ? [own, ...hosts] : [...hosts.filter((h) => h.default), own, ...hosts.filter((h) => !h.default)];
}

export const KEY_REFUSALS = ['key_invalid', 'key_taken', 'key_reserved', 'domain_not_active'] as const;
export type KeyRefusal = (typeof KEY_REFUSALS)[number];
export type KeyVerdict = { domain: string | null; key: string; available: boolean; reason: KeyRefusal | null };

const isRefusal = (code: string): code is KeyRefusal => (KEY_REFUSALS as readonly string[]).includes(code);

/**
 * Whether `key` on `domain` (default: the workspace's default domain) is free for a new link, or
 * for the link `linkId` (whose own key is free to it).
 */
export async function keyAvailability({
  ctx,
  shortLinkBaseUrl,
  input,
}: {
  ctx: Ctx;
  shortLinkBaseUrl: string;
  input: { key: string; domain?: string; linkId?: string };
}): Promise<KeyVerdict> {
  const verdict = (reason: KeyRefusal | null): KeyVerdict => ({ domain: input.domain ?? null, key: input.key, available: reason === null, reason });
  try {
    parseKey(input.key, 'key');
  } catch {
    return verdict('key_invalid');
  }
  const entry: KeyEntry = { index: 0, id: input.linkId, fields: { domain: input.domain, key: input.key } };
  const [link] = input.linkId ? await linksForUpdate(ctx.db, ctx.workspace.id, [input.linkId]) : [];
  if (input.linkId && !link) throw notFound('link', input.linkId);
  try {
    const placements = await placeLinks(
      ctx.db,
      ctx,
      shortLinkBaseUrl,
      link ? { inserts: [], updates: [entry], shortIdOf: () => link.shortId } : { inserts: [{ ...entry, id: undefined }], updates: [], shortIdOf: () => '' },
    );
    await checkKeys(ctx.db, placements, [entry], shortLinkBaseUrl);
    return verdict(null);
  } catch (err) {
    if (err instanceof AppError && isRefusal(err.code)) return verdict(err.code);
    throw err;
  }
}
